"""Human output: `path:start-end  symbol` with a highlighted preview."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from ..results import SearchResponse, other_hit_text
from ..tokens import query_terms


def print_results(console: Console, response: SearchResponse) -> None:
    terms = query_terms(response.query)
    for result in response.results:
        head = Text()
        head.append(f"{result.path}:{result.start_line}-{result.end_line}", style="bold cyan")
        if result.symbol:
            head.append(f"  {result.symbol}", style="bold")
        meta = " ".join(x for x in (result.kind, result.language) if x)
        head.append(f"  [{meta}]  {result.score:.3f}", style="dim")
        console.print(head)
        if result.preview:
            body = Text("\n".join("    " + line for line in result.preview.split("\n")))
            body.highlight_words(terms, style="bold yellow", case_sensitive=False)
            console.print(body)
        if result.also:
            pointers = ", ".join(map(other_hit_text, result.also))
            console.print(Text(f"    also: {pointers}", style="dim"))
        console.print()
