#!/usr/bin/env python3
"""An app server's App Store Server Notifications endpoint, written with Apple's app-store-server-library.

Usage: notification_receiver.py --root CERT.der [--root ...] --bundle-id ID --log FILE --down-flag FILE

Listens on 127.0.0.1 (a free port, printed as "listening on PORT"). Each POST's {"signedPayload": ...} is
verified and decoded with SignedDataVerifier.verify_and_decode_notification; the decoded notification is appended to
the log as one JSON line (with the transaction's revocation fields and the data's consumptionRequestReason) and
answered 200. While the down-flag file exists, every POST fails without being read, in
the way the file names: empty or "503" answers 503 (down for maintenance), "500" answers 500 (a crash), "timeout"
answers nothing for 30 seconds, "reset" closes the connection with a TCP reset. A payload that fails verification is logged with its
status and answered 400. Exits 3 when the library is not installed.
"""
import argparse
import json
import os
import signal
import socket
import struct
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

try:
    from appstoreserverlibrary.models.Environment import Environment
    from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException
except ImportError as error:  # pragma: no cover - reported to the Swift test
    print(f"MISSING_LIBRARY {error}; run: pip install app-store-server-library==3.1.2", flush=True)
    sys.exit(3)


def main():
    # A test runner's child can inherit SIGTERM blocked or ignored, and the receiver would outlive its test: stop on
    # SIGTERM whatever was inherited.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", action="append", required=True)
    parser.add_argument("--bundle-id", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--down-flag", required=True)
    args = parser.parse_args()
    roots = [open(path, "rb").read() for path in args.root]
    verifier = SignedDataVerifier(roots, False, Environment.SANDBOX, args.bundle_id, None)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            if os.path.exists(args.down_flag):
                with open(args.down_flag) as flag:
                    failure = flag.read().strip() or "503"
                if failure == "timeout":
                    time.sleep(30)
                    return
                if failure == "reset":
                    # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()
                    self.close_connection = True
                    return
                self.send_response(int(failure))
                self.end_headers()
                return
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            entry = {}
            try:
                notification = verifier.verify_and_decode_notification(json.loads(body)["signedPayload"])
                entry = {
                    "status": "OK",
                    "notificationType": notification.rawNotificationType,
                    "subtype": notification.rawSubtype,
                    "notificationUUID": notification.notificationUUID,
                }
                if notification.data.signedTransactionInfo is not None:
                    transaction = verifier.verify_and_decode_signed_transaction(notification.data.signedTransactionInfo)
                    entry["transactionId"] = transaction.transactionId
                    entry["originalTransactionId"] = transaction.originalTransactionId
                    entry["revocationDate"] = transaction.revocationDate
                    entry["revocationType"] = transaction.rawRevocationType
                    entry["revocationPercentage"] = transaction.revocationPercentage
                if notification.data is not None:
                    entry["consumptionRequestReason"] = notification.data.rawConsumptionRequestReason
                code = 200
            except VerificationException as error:
                entry = {"status": error.status.name, "error": str(error)}
                code = 400
            with open(args.log, "a") as log:
                log.write(json.dumps(entry) + "\n")
            print(f"received {json.dumps(entry)}", flush=True)
            self.send_response(code)
            self.end_headers()

        def log_message(self, format, *arguments):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"listening on {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
