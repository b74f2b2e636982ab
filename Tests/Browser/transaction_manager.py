#!/usr/bin/env python3
"""Drives the transaction manager page of a running `storekit serve` in headless Chromium.

Usage:
  transaction_manager.py test --base http://127.0.0.1:PORT/
      Runs the browser scenario against a store serving Examples/Demo.storekit with an empty data directory, and
      prints {"passed": [...]} on success. A failed check exits 1 with what was expected and what the page showed.
  transaction_manager.py screenshots --base http://127.0.0.1:PORT/ --out DIR
      Fills the store with a few purchases, then saves the main views in the light and the dark theme, on a laptop
      and a phone screen, as PNG files in DIR.

Needs Debian's `chromium` and `chromium-driver` and Selenium from PyPI (.ci/run installs them); exits 3 without them.
Every request goes to the loopback address given by --base.
"""
import argparse
import base64
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

try:
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError as error:  # pragma: no cover - reported to the Swift test
    print(f"MISSING_SELENIUM {error}; run: pip install selenium", flush=True)
    sys.exit(3)

PREMIUM = "com.example.demo.premium"
THEME = "com.example.demo.theme.dark"
MONTHLY = "com.example.demo.plus.monthly"
COINS = "com.example.demo.coins.100"


class CheckFailed(Exception):
    pass


class Store:
    """The store's control API, called as a backend test would."""

    def __init__(self, base):
        self.base = base

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method, headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def buy(self, product, account):
        status, answer = self.call("POST", "control/purchases", {"productId": product, "account": account})
        if status != 200:
            raise CheckFailed(f"buying {product} for {account} answered {status}: {answer}")
        return answer["transactionId"]


class Receiver:
    """An app server's notification endpoint on loopback: counts each notificationUUID it receives."""

    def __init__(self):
        self.received = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                payload = body["signedPayload"].split(".")[1]
                decoded = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
                receiver.received.append(decoded)
                answer = f"received {decoded.get('notificationType')}".encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/notifications"

    def count(self, uuid):
        return sum(1 for notification in self.received if notification.get("notificationUUID") == uuid)


def browser(width, height):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not chromium or not driver_path:
        print("MISSING_CHROMIUM install Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)", flush=True)
        sys.exit(3)
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", f"--window-size={width},{height}"]:
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(executable_path=driver_path), options=options)


class Page:
    def __init__(self, driver, base):
        self.driver = driver
        self.base = base

    def wait(self, what, condition, timeout=90):
        try:
            return WebDriverWait(
                self.driver, timeout, poll_frequency=0.1, ignored_exceptions=[StaleElementReferenceException]
            ).until(lambda _: condition())
        except TimeoutException:
            raise CheckFailed(f"timed out waiting for {what}")

    def find(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def all(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def text(self, css):
        # Read in one script call: the live page may replace the element between a lookup and a read.
        return self.driver.execute_script("const e = document.querySelector(arguments[0]); return e ? e.innerText : null", css)

    def row(self, transaction_id):
        return f'tr[data-transaction="{transaction_id}"]'

    def state_of(self, transaction_id):
        return self.text(self.row(transaction_id) + " [data-state-label]")

    def open(self, query=""):
        self.driver.get(self.base + query)
        self.wait("the live connection", lambda: self.text("#live") == "live")
        # Survives only as long as the page is not reloaded.
        self.driver.execute_script("window.notReloaded = true")

    def not_reloaded(self):
        return self.driver.execute_script("return window.notReloaded === true")

    def click(self, css):
        # The live page may re-render the element's section between the lookup and the click: look it up again.
        for attempt in range(5):
            try:
                element = self.find(css)
                self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
                element.click()
                return
            except StaleElementReferenceException:
                if attempt == 4:
                    raise

    def type(self, css, text):
        """Makes a field hold exactly `text`, typing again if the live page re-rendered its section meanwhile."""
        def typed():
            field = self.find(css)
            if field.get_attribute("value") != text:
                field.clear()
                field.send_keys(text)
            return self.find(css).get_attribute("value") == text
        self.wait(f"{css} to hold {text!r}", typed)

    def choose(self, css, value):
        """Selects an option, again if the live page re-rendered its section meanwhile."""
        def chosen():
            Select(self.find(css)).select_by_value(value)
            return self.find(css).get_attribute("value") == value
        self.wait(f"{css} to be {value!r}", chosen)

    def message(self, form_css):
        return self.text(form_css + " [data-message]")


def scenario(base):
    store = Store(base)
    receiver = Receiver()
    driver = browser(1400, 1000)
    page = Page(driver, base)
    passed = []
    try:
        return run_scenario(page, store, receiver, driver, passed)
    except CheckFailed as failure:
        # What the page showed when the check failed, for whoever reads the failure.
        evidence = os.path.join(tempfile.gettempdir(), f"transaction-manager-failure-{os.getpid()}")
        os.makedirs(evidence, exist_ok=True)
        driver.save_screenshot(os.path.join(evidence, "page.png"))
        with open(os.path.join(evidence, "page.html"), "w") as html:
            html.write(driver.page_source)
        raise CheckFailed(f"{failure} (passed before it: {passed}; the page as it was: {evidence})")
    finally:
        driver.quit()
        receiver.server.shutdown()


def set_switch(page, store, switches, name, on):
    """Turns a test switch on or off on the page and saves it. The settings section re-renders when the store announces
    a change (an earlier save's, arriving late), which can reset the box between the click and the save: try again
    until the store holds the value."""
    box = f'{switches} input[name="{name}"]'
    for attempt in range(5):
        if page.find(box).is_selected() != on:
            page.click(box)
        page.click(switches + ' button[type="submit"]')
        try:
            page.wait(f"{name} to be saved as {on}", lambda: store.call("GET", "control/settings")[1][name] is on, timeout=10)
            return
        except CheckFailed:
            if attempt == 4:
                raise


def run_scenario(page, store, receiver, driver, passed):
    page.open()

    # The notification URL, set where the log is.
    form = 'form[data-operation="setNotificationURL"]'
    page.type(form + ' input[name="url"]', receiver.url)
    page.click(form + ' button[type="submit"]')
    page.wait("the notification URL to be taken", lambda: page.message(form) == "Done.")
    passed.append("notification URL set from the page")

    # A purchase made through the control API appears without a reload.
    premium = store.buy(PREMIUM, "alice")
    page.wait(f"row {premium} to appear", lambda: page.state_of(premium) == "purchased")
    if not page.not_reloaded():
        raise CheckFailed("the page reloaded to show the purchase")
    passed.append("a purchase through the control API appears live")

    # Refund it on the page: the state changes and REFUND reaches the log and the app's server.
    page.choose(page.row(premium) + ' select[name="reason"]', "app-issue")
    page.click(page.row(premium) + ' button[data-action="refund"]')
    page.wait(f"row {premium} to read refunded", lambda: page.state_of(premium) == "refunded")
    _, transaction = store.call("GET", f"control/transactions/{premium}")
    if transaction.get("revocationReason") != 1:
        raise CheckFailed(f"the refund's reason should be app-issue (1), the store says {transaction.get('revocationReason')}")
    refund_row = f'tr[data-type="REFUND"]'
    page.wait("the REFUND notification in the log", lambda: len(page.all(refund_row)) == 1)
    uuid = page.find(refund_row).get_attribute("data-notification")
    page.wait("the REFUND notification to be delivered", lambda: receiver.count(uuid) == 1 and "delivered" in page.find(refund_row).text)
    page.click(refund_row + " button.expand")
    page.wait("the decoded REFUND payload", lambda: page.text("[data-notification-payload]") is not None)
    payload = page.text("[data-notification-payload]")
    if not re.search(r'"notificationType":\s*"REFUND"', payload) or not re.search(rf'"transactionId":\s*"{premium}"', payload):
        raise CheckFailed(f"the expanded notification should show REFUND for {premium}:\n{payload}")
    # The row was expanded before the attempt finished: the live page brings the attempt and the server's answer.
    page.wait("the attempt with the app server's answer", lambda: "HTTP 200" in (page.text(".attempts") or "") and "received REFUND" in (page.text(".attempts") or ""))
    passed.append("refund on the page: state, REFUND in the log, decoded payload, delivered")

    # Redeliver it: the app's server receives the same notification again, and the row counts two attempts.
    page.click(refund_row + ' form[data-operation="redeliverNotification"] button')
    page.wait("the redelivery", lambda: receiver.count(uuid) == 2)
    page.wait("two attempts in the row", lambda: "2 attempts" in page.find(refund_row).text)
    passed.append("redeliver sends the notification again")

    # Ask to Buy: switch it on, buy on the page, approve.
    switches = 'form[data-operation="updateSettings"]'
    page.click(switches + ' input[name="askToBuyEnabled"]')
    page.click(switches + ' button[type="submit"]')
    page.wait("the switches to be saved", lambda: page.message(switches) == "Done.")
    buy = 'form[data-operation="purchase"]'
    page.choose(buy + ' select[name="productId"]', THEME)
    page.type(buy + ' input[name="account"]', "bob")
    page.click(buy + ' button[type="submit"]')
    page.wait("the purchase to wait for approval", lambda: (page.message(buy) or "").endswith("pending-approval."))
    asked = re.search(r"Transaction (\d+)", page.message(buy)).group(1)
    page.wait(f"row {asked} pending approval", lambda: page.state_of(asked) == "pending-approval")
    page.click(page.row(asked) + ' button[data-operation="approveTransaction"]')
    page.wait(f"row {asked} to be approved", lambda: page.state_of(asked) == "purchased")
    page.click(switches + ' input[name="askToBuyEnabled"]')
    page.click(switches + ' button[type="submit"]')
    page.wait("Ask to Buy off", lambda: store.call("GET", "control/settings")[1]["askToBuyEnabled"] is False)
    passed.append("Ask to Buy: buy on the page, approve")

    # The refund loop: requests await a decision; the customer asks, the row waits with CONSUMPTION_REQUEST sent, a
    # prorated refund from the row, the request in the expanded row, and a reversal.
    set_switch(page, store, switches, "refundRequestsAwaitDecision", True)
    coins = store.buy(COINS, "frank")
    page.wait(f"row {coins}", lambda: page.state_of(coins) == "purchased")
    page.click(page.row(coins) + ' button[data-action="refund-request"]')
    page.wait(f"row {coins} to show the pending request", lambda: "refund request pending" in page.find(page.row(coins)).text)
    page.wait("CONSUMPTION_REQUEST in the log", lambda: len(page.all('tr[data-type="CONSUMPTION_REQUEST"]')) == 1)
    page.type(page.row(coins) + ' input[name="revocationPercentage"]', "25000")
    page.click(page.row(coins) + ' button[data-action="refund-prorated"]')
    page.wait(f"row {coins} to read refunded", lambda: page.state_of(coins) == "refunded")
    _, transaction = store.call("GET", f"control/transactions/{coins}")
    if transaction.get("revocationType") != "REFUND_PRORATED" or transaction.get("revocationPercentage") != 25000:
        raise CheckFailed(f"the page's prorated refund should be REFUND_PRORATED 25000, the store says {transaction}")
    page.click(page.row(coins) + " button.expand")
    page.wait("the refund request panel", lambda: "refunded" in (page.text("[data-refund-panel]") or ""))
    page.click(page.row(coins) + ' button[data-action="reverse-refund"]')
    page.wait(f"row {coins} to be purchased again", lambda: page.state_of(coins) == "purchased")
    page.wait("REFUND_REVERSED in the log", lambda: len(page.all('tr[data-type="REFUND_REVERSED"]')) == 1)
    set_switch(page, store, switches, "refundRequestsAwaitDecision", False)
    passed.append("the refund loop on the page: ask, CONSUMPTION_REQUEST, prorated refund, request panel, reversal")

    # A month on the clock renews a monthly subscription; the renewal and DID_RENEW appear.
    monthly = store.buy(MONTHLY, "carol")
    page.wait(f"row {monthly}", lambda: page.state_of(monthly) == "purchased")
    clock = 'form[data-operation="advanceClock"]'
    page.click(clock + ' button[data-body*="1mo"]')
    page.wait("the renewal to be fired", lambda: "DID_RENEW" in (page.text(clock + " [data-fired]") or ""))
    renewals = lambda: [row for row in page.all("tr[data-transaction]") if MONTHLY in row.text and "renewal" in row.text]
    page.wait("the renewal row", lambda: len(renewals()) == 1)
    page.wait("DID_RENEW in the log", lambda: len(page.all('tr[data-type="DID_RENEW"]')) == 1)
    renewal = renewals()[0].get_attribute("data-transaction")
    page.click(page.row(renewal) + " button.expand")
    # The renewal's own detail row: another row expanded earlier (the refund loop's) stays open.
    payload = f"#tx-detail-{renewal} [data-jws-payload]"
    page.wait("the decoded renewal", lambda: page.text(payload) is not None)
    if not re.search(rf'"productId":\s*"{re.escape(MONTHLY)}"', page.text(payload)):
        raise CheckFailed("the expanded renewal should show its signed transaction's productId")
    passed.append("a month on the clock renews, live, with DID_RENEW")

    # The store refuses: its own words appear where the action was taken.
    page.choose(buy + ' select[name="productId"]', PREMIUM)
    page.type(buy + ' input[name="account"]', "dave")
    page.type(buy + ' input[name="offerCode"]', "NO SUCH CODE")
    page.click(buy + ' button[type="submit"]')
    page.wait("the refusal", lambda: "error" in (page.find(buy + " [data-message]").get_attribute("class") or ""))
    status, answer = store.call("POST", "control/purchases", {"productId": PREMIUM, "account": "dave", "bundleId": "com.example.app", "quantity": 1, "offerCode": "NO SUCH CODE"})
    if status == 200 or page.message(buy) != answer["error"]:
        raise CheckFailed(f"the page should show the store's refusal {answer!r}, it shows {page.message(buy)!r}")
    passed.append("a refused action shows the store's message in place")

    # An offer code redeemed on the App Store, and Family Sharing, from their forms.
    redeem = 'form[data-operation="redeemOfferCode"]'
    page.type(redeem + ' input[name="code"]', "Launch code")
    page.type(redeem + ' input[name="account"]', "erin")
    page.click(redeem + ' button[type="submit"]')
    page.wait("the redeemed code", lambda: (page.message(redeem) or "").endswith("purchased."))
    page.wait("OFFER_REDEEMED in the log", lambda: len(page.all('tr[data-type^="OFFER_REDEEMED"]')) == 1)
    family = 'form[aria-label="Family Sharing"]'
    page.type(family + ' input[name="account"]', "bob")
    page.type(family + ' input[name="family"]', "smiths")
    page.click(family + ' button:not([data-operation])')
    page.wait("bob in the family", lambda: (page.message(family) or "").startswith("Shared"))
    page.wait("the family column", lambda: "smiths" in (page.text("#catalog") or ""))
    passed.append("offer code and Family Sharing forms")

    # Filters narrow the list without a reload.
    page.choose('#transaction-filters select[name="account"]', "carol")
    page.wait("only carol's transactions", lambda: page.all("tr[data-transaction]") and all("carol" in row.text for row in page.all("tr[data-transaction]")))
    if not page.not_reloaded():
        raise CheckFailed("filtering reloaded the page")
    passed.append("filters")

    # Every field has a label a screen reader reads, every button a name, and the keyboard reaches the actions.
    unlabelled = driver.execute_script("""
        return [...document.querySelectorAll('input:not([type=hidden]), select, button')]
          .filter(e => !(e.closest('label') || e.getAttribute('aria-label') || (e.tagName === 'BUTTON' && e.textContent.trim())))
          .map(e => e.outerHTML.slice(0, 80));
    """)
    if unlabelled:
        raise CheckFailed(f"fields without a label or buttons without a name: {unlabelled}")
    collapsed = page.find('#notifications button.expand[aria-expanded="false"]')
    target = collapsed.get_attribute("aria-controls")
    collapsed.send_keys(" ")
    page.wait("a row expanded from the keyboard", lambda: page.driver.execute_script(
        "return document.querySelector(`button[aria-controls='${arguments[0]}']`).getAttribute('aria-expanded')", target) == "true")
    passed.append("labels and keyboard")

    # The dark theme is a different palette.
    light = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
    page.open("?theme=dark")
    dark = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
    if light == dark:
        raise CheckFailed("the dark theme should change the page's background")
    passed.append("light and dark themes")
    return passed


def screenshots(base, out):
    os.makedirs(out, exist_ok=True)
    store = Store(base)
    store.call("PUT", "control/settings", {"askToBuyEnabled": False})
    refunded = store.buy(PREMIUM, "alice")
    store.call("POST", f"control/transactions/{refunded}/refund", {"reason": "app-issue"})
    store.buy(COINS, "alice")
    monthly = store.buy(MONTHLY, "carol")
    store.call("POST", "control/clock/advance", {"by": "1mo"})
    store.call("PUT", "control/settings", {"askToBuyEnabled": True})
    store.buy(THEME, "bob")
    store.call("PUT", "control/settings", {"askToBuyEnabled": False})
    saved = []
    for theme in ["light", "dark"]:
        for name, (width, height) in {"laptop": (1440, 1100), "phone": (390, 844)}.items():
            driver = browser(width, height)
            try:
                page = Page(driver, base)
                page.open(f"?theme={theme}")
                path = os.path.join(out, f"manager-{name}-{theme}.png")
                driver.save_screenshot(path)
                saved.append(path)
                if name == "laptop":
                    page.click(page.row(monthly) + " button.expand")
                    page.wait("the expanded subscription", lambda: page.text("[data-jws-payload]") is not None)
                    driver.execute_script("document.getElementById('tx-detail-%s').scrollIntoView()" % monthly)
                    path = os.path.join(out, f"manager-transaction-{theme}.png")
                    driver.save_screenshot(path)
                    saved.append(path)
            finally:
                driver.quit()
    return saved


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["test", "screenshots"])
    parser.add_argument("--base", required=True, help="the store's base URL, e.g. http://127.0.0.1:8080/")
    parser.add_argument("--out", default="screenshots", help="where screenshots go")
    args = parser.parse_args()
    base = args.base if args.base.endswith("/") else args.base + "/"
    try:
        if args.mode == "test":
            print(json.dumps({"passed": scenario(base)}))
        else:
            for path in screenshots(base, args.out):
                print(path)
    except CheckFailed as failure:
        print(f"FAILED {failure}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
