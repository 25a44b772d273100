"""The ranking: candidates' scores made one and ordered, in the order the engine runs it.

``fusion`` (the two retrievers' scores made one) -> ``priors`` (multipliers by what a
candidate is; ``asked_names``, ``path_words``) -> ``evidence`` (coverage, verbatim) ->
``file_order`` (which chunk answers for a file, penalties, merging, pointers). Their
multipliers and switches: ``signals``.
"""
