"""The graph page in a real headless browser: nodes drawn, search, click, zoom, offline."""

from __future__ import annotations

from pathlib import Path

import pytest

from sleuth import Index
from sleuth.graph import to_html

from .browser import headless_chromium


@pytest.fixture(scope="module")
def graph_page(embedded_repo: Path, tmp_path_factory: pytest.TempPathFactory):
    graph = Index(embedded_repo).graph(k=3, threshold=0.0)
    page = tmp_path_factory.mktemp("graph") / "graph.html"
    page.write_text(to_html(graph), encoding="utf-8")
    return graph, page


@pytest.fixture(scope="module")
def browser():
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SE_OFFLINE", "true")  # Selenium must never look for drivers online
        with headless_chromium() as driver:
            yield driver


def _open(driver, page: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(page.as_uri())
    WebDriverWait(driver, 20).until(
        lambda d: d.execute_script("return document.body.dataset.ready") == "1"
    )


def test_every_node_and_edge_is_drawn_inside_the_view(browser, graph_page) -> None:
    from selenium.webdriver.common.by import By

    graph, page = graph_page
    _open(browser, page)
    circles = browser.find_elements(By.CSS_SELECTOR, "circle.node")
    assert len(circles) == len(graph.nodes)
    assert len(browser.find_elements(By.CSS_SELECTOR, "line.edge")) == len(graph.edges)
    assert {c.get_attribute("data-path") for c in circles} == {n.path for n in graph.nodes}
    inside = browser.execute_script(
        """
        const view = document.getElementById('graph').getBoundingClientRect();
        return [...document.querySelectorAll('circle.node')].map((c) => {
          const r = c.getBoundingClientRect();
          return r.width > 0 && r.left >= view.left && r.right <= view.right &&
                 r.top >= view.top && r.bottom <= view.bottom;
        });
        """
    )
    assert all(inside)
    # nothing was fetched: the page is self-contained
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    stats = browser.find_element(By.ID, "stats").text
    assert stats.startswith(f"{len(graph.nodes)} files, {len(graph.edges)} links")


def test_search_highlights_matching_paths_and_enter_selects(browser, graph_page) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    graph, page = graph_page
    _open(browser, page)
    expected = sorted(n.path for n in graph.nodes if "retry" in n.path)
    assert len(expected) == 2
    box = browser.find_element(By.ID, "search")
    box.send_keys("retry")
    assert browser.find_element(By.ID, "match-count").text == "2 matches"
    matched = browser.find_elements(By.CSS_SELECTOR, "circle.node.match")
    assert sorted(c.get_attribute("data-path") for c in matched) == expected
    dimmed = browser.find_elements(By.CSS_SELECTOR, "circle.node.dim")
    assert len(dimmed) >= len(graph.nodes) - 2 - 3  # the rest fade (neighbours may stay)
    box.send_keys(Keys.ENTER)
    selected = browser.find_element(By.ID, "selected-path").text
    assert selected in expected
    box.send_keys(Keys.ESCAPE)
    assert browser.find_element(By.ID, "match-count").text == ""


def test_clicking_a_node_shows_path_and_preview(browser, graph_page) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    _, page = graph_page
    _open(browser, page)
    node = browser.find_element(By.CSS_SELECTOR, 'circle.node[data-path="src/config/parser.py"]')
    ActionChains(browser).move_to_element(node).click().perform()
    assert browser.find_element(By.ID, "selected-path").text == "src/config/parser.py"
    assert "class ConfigParser" in browser.find_element(By.ID, "preview").text
    assert "selected" in node.get_attribute("class")


def test_zoom_and_colour_by_directory(browser, graph_page) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _, page = graph_page
    _open(browser, page)
    viewport = browser.find_element(By.ID, "viewport")
    before = viewport.get_attribute("transform")
    svg = browser.find_element(By.ID, "graph")
    ActionChains(browser).scroll_from_origin(ScrollOrigin.from_element(svg), 0, -400).perform()
    after = viewport.get_attribute("transform")
    assert after != before

    def scale(transform: str) -> float:
        return float(transform.rsplit("scale(", 1)[1].rstrip(")"))

    assert scale(after) > scale(before)  # scrolling up zooms in
    fills_by_type = {
        c.get_attribute("data-path"): c.get_attribute("fill")
        for c in browser.find_elements(By.CSS_SELECTOR, "circle.node")
    }
    Select(browser.find_element(By.ID, "colour-by")).select_by_value("directory")
    fills_by_dir = {
        c.get_attribute("data-path"): c.get_attribute("fill")
        for c in browser.find_elements(By.CSS_SELECTOR, "circle.node")
    }
    assert fills_by_dir != fills_by_type
    legend = browser.find_element(By.ID, "legend").text
    assert "src/uploads" in legend
    # files of one directory share a colour
    assert fills_by_dir["src/app.py"] != fills_by_dir["docs/guide.md"]
