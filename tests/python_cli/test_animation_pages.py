"""Animated pages (docs/animations.md) opened in a real browser: headless Chromium driven by
Selenium through chromedriver (Debian's chromium, chromium-driver, python3-selenium), with every
network request sent to a dead proxy — the pages must work offline. For each page: no console
error; the positions drawn at three times equal the trajectory's (computed here from the CSV with
the model's own geometry, to 1e-9 in model units); the slider and play change the frame; a
screenshot is written (MECHINT_SCREENSHOT_DIR, the build tree; docs/images/ has one of them)."""
import csv
import math
import os
import shutil
import time

import pytest

from conftest import SOURCE_DIR

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    HAVE_SELENIUM = True
except ImportError:
    HAVE_SELENIUM = False


@pytest.fixture(scope="module")
def browser():
    if not HAVE_SELENIUM or not os.access(CHROMIUM, os.X_OK) or not os.access(CHROMEDRIVER, os.X_OK):
        pytest.skip("headless Chromium is not installed (chromium, chromium-driver, python3-selenium: "
                    "scripts/install-deps.sh)")
    options = Options()
    options.binary_location = CHROMIUM
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=900,1300",
                     # offline: any request would go to a port where nothing listens
                     "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                     "--host-resolver-rules=MAP * ~NOTFOUND"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    return [dict(zip(header, map(float, row))) for row in rows[1:]]


def open_page(browser, page):
    browser.get_log("browser")  # drop what earlier pages logged
    browser.get("file://" + str(page))
    # A bound on the wait, not a measure of speed: a loaded machine may take long to draw.
    for _ in range(1200):
        if browser.execute_script("return window.mechint !== undefined && window.mechint.redraws > 0"):
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the page did not draw: " + str(browser.get_log("browser")))


def console_errors(browser):
    return [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]


def check_page(browser, page, csv_path, expected_positions, screenshot):
    """The checks every page passes; `expected_positions(row)` gives {point: [x, y(, z)]} of a CSV row."""
    html = page.read_text()
    assert "http://" not in html and "https://" not in html and 'src="' not in html
    open_page(browser, page)
    rows = {row["t"]: row for row in read_csv(csv_path)}
    frames = browser.execute_script("return window.mechint.data.t.length")
    assert frames >= 3
    # Three frames: the start, one inside, the end.
    for frame in [0, frames // 3, frames - 1]:
        browser.execute_script("window.mechint.setFrame(arguments[0])", frame)
        t, drawn = browser.execute_script("return [window.mechint.time, window.mechint.drawn]")
        assert t in rows, f"frame {frame} at t = {t} is not a row of the run"
        expected = expected_positions(rows[t])
        for name, position in expected.items():
            assert len(drawn[name]) == len(position)
            for a, b in zip(drawn[name], position):
                assert abs(a - b) <= 1e-9, (frame, t, name, drawn[name], position)
    # The slider: End moves to the last frame, Home back to the first.
    slider = browser.find_element(By.ID, "slider")
    slider.send_keys(Keys.END)
    assert browser.execute_script("return window.mechint.frame") == frames - 1
    last = browser.execute_script("return window.mechint.drawn")
    slider.send_keys(Keys.HOME)
    assert browser.execute_script("return window.mechint.frame") == 0
    assert browser.execute_script("return window.mechint.drawn") != last
    # Play advances the frame by itself.
    browser.find_element(By.ID, "play").click()
    for _ in range(1200):
        if browser.execute_script("return window.mechint.frame") > 0:
            break
        time.sleep(0.05)
    assert browser.execute_script("return window.mechint.frame") > 0
    browser.find_element(By.ID, "play").click()  # pause
    assert not browser.execute_script("return window.mechint.playing")
    # Nothing was fetched, nothing failed.
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert console_errors(browser) == []
    browser.execute_script("window.mechint.setFrame(Math.floor(window.mechint.data.t.length * 0.6))")
    directory = os.environ.get("MECHINT_SCREENSHOT_DIR", str(page.parent))
    os.makedirs(directory, exist_ok=True)
    assert browser.save_screenshot(os.path.join(directory, screenshot))


def test_double_pendulum_with_a_wall(mechint, browser, tmp_path):
    l1, l2 = 1.2, 0.9
    csv_path, page = tmp_path / "dp.csv", tmp_path / "dp.html"
    mechint("run", "double-pendulum", "--set", "wall=1", "--set", f"l1={l1}", "--set", f"l2={l2}", "--t-end", "10",
            "--out", str(csv_path), "--animate", str(page))

    def positions(row):
        # 004 §IV-A: th1 from the downward vertical, th2 relative to the first rod
        a, b = row["th1"], row["th1"] + row["th2"]
        m1 = [l1 * math.sin(a), -l1 * math.cos(a)]
        return {"m1": m1, "m2": [m1[0] + l2 * math.sin(b), m1[1] - l2 * math.cos(b)], "pivot": [0, 0]}

    check_page(browser, page, csv_path, positions, "animation-double-pendulum-wall.png")
    assert browser.execute_script("return window.mechint.data.walls.length") == 1
    # The wall is marked in the frames whose interval holds an impact, as the run's own count (the
    # column `impacts` of the impact driver) says: some frames of this run, not all.
    rows = read_csv(csv_path)
    assert browser.execute_script("return window.mechint.impactsFrom") == "run"
    counted = [f for f in range(1, len(rows)) if rows[f]["impacts"] > rows[f - 1]["impacts"]]
    assert 0 < len(counted) < len(rows)
    assert marked_frames(browser) == counted
    # view draws the same run from its CSV
    viewed = tmp_path / "viewed.html"
    mechint("view", str(csv_path), "--system", "double-pendulum", "--set", "wall=1", "--set", f"l1={l1}",
            "--set", f"l2={l2}", "--out", str(viewed))
    check_page(browser, viewed, csv_path, positions, "view-double-pendulum-wall.png")
    assert marked_frames(browser) == counted
    # A CSV without the count (an older mechint's) falls back to positions: the frames where the
    # second mass is at the wall (phi = x2 + wall_offset ~ 0, within 1 % of the scene's size).
    bare_csv, bare = tmp_path / "bare.csv", tmp_path / "bare.html"
    with open(csv_path, newline="") as f:
        table = list(csv.reader(f))
    keep = [i for i, name in enumerate(table[0]) if name != "impacts"]
    with open(bare_csv, "w", newline="") as f:
        csv.writer(f).writerows([[row[i] for i in keep] for row in table])
    mechint("view", str(bare_csv), "--system", "double-pendulum", "--set", "wall=1", "--set", f"l1={l1}",
            "--set", f"l2={l2}", "--out", str(bare))
    open_page(browser, bare)
    assert browser.execute_script("return window.mechint.impactsFrom") == "positions"
    tolerance = browser.execute_script("return window.mechint.contactTolerance")
    near_wall = [i for i, row in enumerate(rows)
                 if abs(l1 * math.sin(row["th1"]) + l2 * math.sin(row["th1"] + row["th2"]) + 0.25) <= tolerance]
    assert marked_frames(browser) == near_wall


def marked_frames(browser):
    """The frames in which the page draws a wall red."""
    return browser.execute_script(
        "const m = window.mechint, marked = [];"
        "for (let f = 0; f < m.data.t.length; ++f) { m.setFrame(f); if (m.touching) marked.push(f); }"
        "return marked;")


def test_the_impacts_of_004_are_marked_at_the_drivers_impact_times(mechint, browser, tmp_path):
    # The page of reproduce impacts (004 Fig. 2 left, vi-trapezoid with MHC, h = 5.8e-2): every impact
    # the driver resolved, as impacts.csv lists them, marks the frame whose interval holds it, and no
    # other frame is marked. (Marked from positions, 4 of these 5 impacts went unseen.)
    out = tmp_path / "impacts"
    mechint("reproduce", "impacts", "--out", str(out))
    with open(out / "impacts.csv", newline="") as f:
        times = [float(row["time"]) for row in csv.DictReader(f)
                 if row["variant"] == "vi-trapezoid/mhc" and float(row["h"]) == 5.8e-2]
    assert len(times) == 5
    open_page(browser, out / "fig2_left_mhc.html")
    assert browser.execute_script("return window.mechint.impactsFrom") == "run"
    t = browser.execute_script("return window.mechint.data.t")
    # Frame f shows the interval (t[f-1], t[f]]; the driver's impact time lies inside its step
    # (to round-off at the step's end).
    expected = sorted({next(f for f in range(1, len(t)) if t[f - 1] < time <= t[f] + 1e-12) for time in times})
    assert len(expected) == len(times)
    assert marked_frames(browser) == expected
    assert console_errors(browser) == []


def test_thinned_frames_keep_every_impact(mechint, browser, tmp_path):
    # 40,001 rows, every third one shown: an impact in a row left out marks the next frame shown.
    csv_path, page = tmp_path / "long.csv", tmp_path / "long.html"
    mechint("run", "double-pendulum", "--set", "wall=1", "--h", "1e-3", "--t-end", "40", "--out", str(csv_path),
            "--animate", str(page))
    rows = read_csv(csv_path)
    open_page(browser, page)
    t = browser.execute_script("return window.mechint.data.t")
    assert len(t) < len(rows)
    impact_times = [rows[k]["t"] for k in range(1, len(rows)) if rows[k]["impacts"] > rows[k - 1]["impacts"]]
    assert len(impact_times) > 0
    expected = sorted({next(f for f in range(1, len(t)) if t[f - 1] < time <= t[f]) for time in impact_times})
    assert browser.execute_script("return window.mechint.data.impact_frames") == expected
    for f in expected[:5]:
        browser.execute_script("window.mechint.setFrame(arguments[0])", f)
        assert browser.execute_script("return window.mechint.touching") == 1


def test_double_spherical_pendulum(mechint, browser, tmp_path):
    csv_path, page = tmp_path / "dsp.csv", tmp_path / "dsp.html"
    mechint("run", "double-spherical-pendulum", "--t-end", "5", "--out", str(csv_path), "--animate", str(page))

    def positions(row):
        return {"m1": [row["x1"], row["y1"], row["z1"]], "m2": [row["x2"], row["y2"], row["z2"]]}

    check_page(browser, page, csv_path, positions, "animation-double-spherical-pendulum.png")
    assert browser.execute_script("return window.mechint.data.dimension") == 3


def test_model_file_with_draw(mechint, browser, tmp_path):
    l = 0.7
    csv_path, page = tmp_path / "cp.csv", tmp_path / "cp.html"
    mechint("run", os.path.join(SOURCE_DIR, "examples", "models", "cart-pole.toml"), "--set", f"l={l}",
            "--t-end", "5", "--out", str(csv_path), "--animate", str(page))

    def positions(row):
        # examples/models/cart-pole.toml: th from the upward vertical
        return {"cart": [row["x"], 0], "bob": [row["x"] + l * math.sin(row["th"]), l * math.cos(row["th"])]}

    check_page(browser, page, csv_path, positions, "animation-cart-pole-model-file.png")


def test_a_million_rows_make_a_small_page_that_opens_quickly(mechint, browser, tmp_path):
    csv_path, page = tmp_path / "k.csv", tmp_path / "k.html"
    mechint("run", "kepler", "--h", "1e-4", "--t-end", "100", "--out", str(csv_path), "--animate", str(page))
    with open(csv_path) as f:
        assert sum(1 for _ in f) == 1_000_002  # header, 10^6 steps + the start
    size = page.stat().st_size
    assert size < 20e6, size
    start = time.monotonic()
    open_page(browser, page)
    seconds = time.monotonic() - start
    # The time is reported, not asserted: no test depends on the machine's speed (docs/animations.md
    # has the figure measured on an idle machine).
    print(f"page of 10^6 rows: {size / 1e6:.1f} MB, drawn {seconds:.2f} s after opening")
    assert console_errors(browser) == []
    frames = browser.execute_script("return window.mechint.data.t.length")
    assert frames <= 20001
    assert browser.execute_script("return window.mechint.data.t[window.mechint.data.t.length - 1]") == 100
