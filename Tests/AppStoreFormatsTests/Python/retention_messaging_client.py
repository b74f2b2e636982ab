#!/usr/bin/env python3
"""Drive a store's Retention Messaging API with Apple's AppStoreServerAPIClient, and be its Get Retention Message endpoint.

Usage: retention_messaging_client.py --base-url URL --key-file P8 --key-id ID --issuer ID --bundle-id ID
                                     --root CERT.der [--root ...] --transaction-id ID --product-id ID --locale CODE

Calls all fourteen Retention Messaging methods of the client (Environment.SANDBOX, its base URL pointed at the store):
uploads real PNGs made here with zlib, a message with an image and a bullet point, configures a default message and the
realtime URL, runs the performance test against an endpoint this script serves on 127.0.0.1 (every request it gets is
verified with SignedDataVerifier.verify_and_decode_realtime_request), then deletes everything. Apple errors are recorded
by their code. Prints one JSON object. Exits 3 when the library is not installed.
"""
import argparse
import json
import struct
import sys
import threading
import time
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

try:
    import attr
    from appstoreserverlibrary.api_client import AppStoreServerAPIClient, APIException
    from appstoreserverlibrary.models.BulletPoint import BulletPoint
    from appstoreserverlibrary.models.DefaultConfigurationRequest import DefaultConfigurationRequest
    from appstoreserverlibrary.models.Environment import Environment
    from appstoreserverlibrary.models.HeaderPosition import HeaderPosition
    from appstoreserverlibrary.models.ImageSize import ImageSize
    from appstoreserverlibrary.models.PerformanceTestRequest import PerformanceTestRequest
    from appstoreserverlibrary.models.RealtimeUrlRequest import RealtimeUrlRequest
    from appstoreserverlibrary.models.UploadMessageImage import UploadMessageImage
    from appstoreserverlibrary.models.UploadMessageRequestBody import UploadMessageRequestBody
    from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException
except ImportError as error:  # pragma: no cover - reported to the Swift test
    print(json.dumps({"status": "MISSING_LIBRARY", "error": f"{error}; run: pip install app-store-server-library==3.1.2"}))
    sys.exit(3)


def png(width, height):
    """An opaque white RGB PNG, written by hand: signature, IHDR, one zlib IDAT, IEND, each chunk with its CRC."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + b"\xff" * (width * 3) for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def error_code(call):
    """Runs `call`, which Apple's client should refuse; returns the error code of its APIException."""
    try:
        call()
    except APIException as error:
        return error.raw_api_error
    return None


class Endpoint:
    """A Get Retention Message endpoint: verifies each request and answers with a message, as a backend would."""

    def __init__(self, verifier, message_id):
        self.requests = []
        self.failures = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                started = time.monotonic()
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                try:
                    decoded = verifier.verify_and_decode_realtime_request(json.loads(body)["signedPayload"])
                    endpoint.requests.append({
                        "originalTransactionId": decoded.originalTransactionId, "productId": decoded.productId,
                        "userLocale": decoded.userLocale, "requestIdentifier": str(decoded.requestIdentifier),
                        "environment": decoded.rawEnvironment, "appAppleId": decoded.appAppleId, "signedDate": decoded.signedDate,
                        "handledMilliseconds": int((time.monotonic() - started) * 1000),
                    })
                    answer = json.dumps({"message": {"messageIdentifier": message_id}}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                except (VerificationException, KeyError, ValueError) as error:
                    endpoint.failures.append(str(error))
                    self.send_response(400)
                    self.end_headers()

            def log_message(self, format, *arguments):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/retention"


def main():
    parser = argparse.ArgumentParser()
    for name in ["--base-url", "--key-file", "--key-id", "--issuer", "--bundle-id", "--transaction-id", "--product-id", "--locale"]:
        parser.add_argument(name, required=True)
    parser.add_argument("--root", action="append", required=True)
    args = parser.parse_args()
    verifier = SignedDataVerifier([open(path, "rb").read() for path in args.root], False, Environment.SANDBOX, args.bundle_id, None)
    client = AppStoreServerAPIClient(open(args.key_file, "rb").read(), args.key_id, args.issuer, args.bundle_id, Environment.SANDBOX)
    client._base_url = args.base_url
    image, icon, spare = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    message, plain = uuid.uuid4(), uuid.uuid4()
    endpoint = Endpoint(verifier, str(message))
    result = {"image": str(image), "icon": str(icon), "message": str(message), "plain": str(plain), "endpoint": endpoint.url}

    # Images: a full-size image and a bullet-point icon; a second upload of the same identifier, and bytes that are
    # not a PNG.
    client.upload_image(image, png(3840, 160))
    client.upload_image(icon, png(64, 64), ImageSize.BULLET_POINT)
    result["images"] = [{"id": str(item.imageIdentifier), "state": item.rawImageState, "size": item.rawImageSize}
                        for item in client.get_image_list().imageIdentifiers or []]
    result["duplicateImage"] = error_code(lambda: client.upload_image(image, png(3840, 160)))
    result["notAPNG"] = error_code(lambda: client.upload_image(spare, b"GIF89a not a png"))

    # Messages: one with the image and a bullet point, header above the image; one with text only.
    client.upload_message(message, UploadMessageRequestBody(
        header="Before you go", body="Here is everything your plan keeps for you.",
        image=UploadMessageImage(imageIdentifier=image, altText="A chart of your progress"),
        headerPosition=HeaderPosition.ABOVE_IMAGE,
        bulletPoints=[BulletPoint(text="Unlimited projects", imageIdentifier=icon, altText="Check mark")]))
    client.upload_message(plain, UploadMessageRequestBody(header="Stay with us", body="Your history stays with your plan."))
    result["messages"] = [{"id": str(item.messageIdentifier), "state": item.rawMessageState}
                          for item in client.get_message_list().messageIdentifiers or []]
    result["duplicateMessage"] = error_code(lambda: client.upload_message(plain, UploadMessageRequestBody(header="h", body="b")))
    result["imageInUse"] = error_code(lambda: client.delete_image(image))

    # Default message for the subscription in the locale.
    client.configure_default_message(args.product_id, args.locale, DefaultConfigurationRequest(messageIdentifier=message))
    result["defaultMessage"] = str(client.get_default_message(args.product_id, args.locale).messageIdentifier)
    result["unknownDefault"] = error_code(lambda: client.configure_default_message(
        args.product_id, args.locale, DefaultConfigurationRequest(messageIdentifier=uuid.uuid4())))
    result["badLocale"] = error_code(lambda: client.get_default_message(args.product_id, "en_US"))

    # The realtime URL, and the performance test that calls it.
    result["noTestWithoutURL"] = error_code(lambda: client.initiate_performance_test(PerformanceTestRequest(originalTransactionId=args.transaction_id)))
    client.configure_realtime_url(RealtimeUrlRequest(realtimeURL=endpoint.url))
    result["realtimeURL"] = client.get_realtime_url().realtimeURL
    started = client.initiate_performance_test(PerformanceTestRequest(originalTransactionId=args.transaction_id))
    result["performanceTestConfig"] = attr.asdict(started.config)
    deadline = time.monotonic() + 60
    while True:
        test = client.get_performance_test_results(started.requestId)
        if test.rawResult != "PENDING" or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    result["performanceTest"] = {
        "result": test.rawResult, "successRate": test.successRate, "numPending": test.numPending, "target": test.target,
        "responseTimes": attr.asdict(test.responseTimes) if test.responseTimes else None, "failures": test.rawFailures,
        "config": attr.asdict(test.config),
    }
    result["unknownTestRun"] = error_code(lambda: client.get_performance_test_results(str(uuid.uuid4())))
    result["endpointRequests"] = endpoint.requests
    result["endpointFailures"] = endpoint.failures

    # Everything deleted again, and what Apple answers for what is gone.
    client.delete_default_message(args.product_id, args.locale)
    result["deletedDefault"] = error_code(lambda: client.get_default_message(args.product_id, args.locale))
    client.delete_realtime_url()
    result["deletedRealtimeURL"] = error_code(lambda: client.get_realtime_url())
    client.delete_message(message)
    client.delete_message(plain)
    result["deletedMessage"] = error_code(lambda: client.delete_message(plain))
    client.delete_image(image)
    client.delete_image(icon)
    result["deletedImage"] = error_code(lambda: client.delete_image(icon))
    result["imagesAfter"] = len(client.get_image_list().imageIdentifiers or [])
    result["messagesAfter"] = len(client.get_message_list().messageIdentifiers or [])
    endpoint.server.shutdown()
    print(json.dumps(result, default=str))


if __name__ == "__main__":
    main()
