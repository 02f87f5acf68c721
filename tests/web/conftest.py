import pytest

from tests.web.browser import launch_browser, start_playwright


@pytest.fixture(scope="module")
def browser():
    playwright = start_playwright()
    try:
        browser = launch_browser(playwright)
        yield browser
        browser.close()
    finally:
        playwright.stop()
