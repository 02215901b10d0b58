"""The workbench's page in Debian's Chromium, shared by the tests that drive it with Playwright: the flags Chromium
is launched with (`CHROMIUM_ARGS`), where an element or a trooper's base is on the screen, and a tap on a base."""

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--enable-unsafe-swiftshader"]


def screen_box(page, selector: str) -> dict:
    """Where an element of the top view is on the screen (asked again while the top view is being drawn anew: a
    redraw replaces its elements, and one replaced while asked has no box)."""
    element = page.locator(selector)
    for _ in range(50):
        box = element.bounding_box()
        if box is not None:
            return box
        page.wait_for_timeout(100)
    raise AssertionError(f"{selector} is not drawn on the top view")


def trooper_centre(page, trooper_id: str) -> tuple[float, float]:
    """Where a trooper's base is on the screen."""
    box = screen_box(page, f'[data-trooper="{trooper_id}"]')
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def tap(page, trooper_id: str, touch: bool) -> None:
    """Tap a trooper's base, by touch or with the mouse."""
    x, y = trooper_centre(page, trooper_id)
    if touch:
        page.touchscreen.tap(x, y)
    else:
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.up()
    page.wait_for_timeout(300)
