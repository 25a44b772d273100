"""How search results are ranked: the candidates' scores made one and put in order, a
module per step, in the order the engine runs them.

``fusion`` (the two retrievers' scores made one) -> ``priors`` (multipliers by what a
candidate is; ``asked_names``, ``path_words``) -> ``evidence`` (coverage, verbatim) ->
``file_order`` (which chunk answers for a file, penalties, merging, pointers). Their
multipliers and switches: ``signals``.
"""
