"""A real headless Chromium (Debian's chromium + chromium-driver) driven by Selenium."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
INSTALL_HINT = (
    "the browser tests need Chromium and its driver: "
    "`apt-get install -y chromium chromium-driver` (.ci/run installs them)"
)


def find_browser() -> tuple[str, str]:
    """(browser, driver) executables, or a test failure that says how to install them."""
    chosen = os.environ.get("SLEUTH_TEST_CHROMIUM")
    names = [chosen] if chosen else list(CHROMIUM_CANDIDATES)
    browser = next((path for name in names if (path := shutil.which(name))), None)
    driver = shutil.which(os.environ.get("SLEUTH_TEST_CHROMEDRIVER") or "chromedriver")
    if not browser or not driver:
        pytest.fail(INSTALL_HINT, pytrace=False)
    return browser, driver


@contextmanager
def headless_chromium(width: int = 1280, height: int = 800) -> Iterator:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver_path = find_browser()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in (
        "--headless=new",
        "--no-sandbox",  # tests may run as root in containers
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        f"--window-size={width},{height}",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()
