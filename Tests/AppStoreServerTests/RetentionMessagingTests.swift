import AppStoreEngine
import AppStoreFormats
@testable import AppStoreServer
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import StoreKitConfiguration
import Testing

/// The Retention Messaging API: images, messages, default messages, the realtime URL and the performance test, with
/// Apple's error codes.
@Suite("Retention Messaging API")
struct RetentionMessagingTests {
    static let start = Date(timeIntervalSince1970: 1_768_478_400)
    static let bundleID = "com.example.demo"
    /// The API key's private half, kept as bytes: the key type is not `Sendable` on Linux.
    let privateKeyBytes = P256.Signing.PrivateKey().rawRepresentation
    let engine: StoreEngine

    init() {
        let catalog = Catalog(products: [
            CatalogProduct(id: "premium", type: .nonConsumable, price: Decimal(string: "4.99")!),
            CatalogProduct(id: "monthly", type: .autoRenewable, price: Decimal(string: "2.99")!,
                           subscription: SubscriptionTerms(groupID: "G1", level: 1, period: SubscriptionPeriod(value: 1, unit: .month))),
        ])
        engine = StoreEngine(catalog: catalog, storage: InMemoryStorage(), clock: VirtualClock(start: Self.start), signer: .ephemeral)
    }

    var privateKey: P256.Signing.PrivateKey { try! P256.Signing.PrivateKey(rawRepresentation: privateKeyBytes) }
    var key: ServerAPIKey { ServerAPIKey(keyID: "RETAIN0001", issuerID: "issuer-1", publicKey: privateKey.publicKey, created: Self.start) }

    /// A bearer token for `bundleID`, as Apple's libraries make one (no `iat`).
    func token(bundleID: String = Self.bundleID) throws -> String {
        func base64URL(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        func encode(_ object: [String: Any]) throws -> String {
            base64URL(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        }
        let claims: [String: Any] = ["iss": "issuer-1", "aud": "appstoreconnect-v1", "bid": bundleID, "exp": Int(Date().timeIntervalSince1970) + 600]
        let input = try encode(["alg": "ES256", "kid": "RETAIN0001", "typ": "JWT"]) + "." + encode(claims)
        return input + "." + base64URL(try privateKey.signature(for: Data(input.utf8)).rawRepresentation)
    }

    /// Sends an authenticated request; returns the status and the JSON body.
    func call(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, json: String? = nil, png: [UInt8]? = nil,
        bundleID: String = Self.bundleID
    ) async throws -> (HTTPResponse.Status, [String: Any]) {
        var headers: HTTPFields = [.authorization: "Bearer " + (try token(bundleID: bundleID))]
        headers[.contentType] = png == nil ? "application/json" : "image/png"
        let body = png.map { ByteBuffer(bytes: $0) } ?? json.map { ByteBuffer(string: $0) }
        return try await client.execute(uri: uri, method: method, headers: headers, body: body) { response in
            (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [String: Any] ?? [:])
        }
    }

    /// The `errorCode` of an answer.
    func errorCode(_ answer: (HTTPResponse.Status, [String: Any])) -> Int? {
        answer.1["errorCode"] as? Int
    }

    /// A PNG's structure — signature, `IHDR`, `IDAT`, `IEND` — for the store's checks, which read no pixels.
    static func png(width: Int = 3840, height: Int = 160, colorType: UInt8 = 2, extraChunk: String? = nil) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let length = UInt32(data.count)
            return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + Array(type.utf8) + data + [0, 0, 0, 0]
        }
        func word(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", word(width) + word(height) + [8, colorType, 0, 0, 0])
        if let extraChunk { bytes += chunk(extraChunk, [0, 0]) }
        return bytes + chunk("IDAT", [0x78, 0x01, 0x01, 0x00, 0x00]) + chunk("IEND", [])
    }

    func withServer(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await StoreServer(engine: engine, port: 0, apiKeys: ServerAPIKeyRing(keys: [key])).makeApplication().test(.router) { client in try await body(client) }
    }

    @Test("Images: an opaque PNG is APPROVED and listed; non-PNGs, transparency, wrong sizes, duplicates and unknown identifiers get Apple's errors")
    func images() async throws {
        try await withServer { client in
            let image = "0f7c5a8e-3d1b-4a6e-9c2f-1b2d3e4f5a6b", icon = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
            #expect(try await call(client, .put, "/inApps/v1/messaging/image/\(image)", png: Self.png()).0 == .ok)
            #expect(try await call(client, .put, "/inApps/v1/messaging/image/\(icon)?imageSize=BULLET_POINT", png: Self.png(width: 96, height: 96)).0 == .ok)
            let (status, list) = try await call(client, .get, "/inApps/v1/messaging/image/list")
            #expect(status == .ok)
            let items = try #require(list["imageIdentifiers"] as? [[String: String]])
            #expect(items == [
                ["imageIdentifier": image, "imageState": "APPROVED", "imageSize": "FULL_SIZE"],
                ["imageIdentifier": icon, "imageState": "APPROVED", "imageSize": "BULLET_POINT"],
            ])
            let other = "2b3c4d5e-6f70-4a8b-9cad-bed0f1a2b3c4"
            #expect(errorCode(try await call(client, .put, "/inApps/v1/messaging/image/\(image)", png: Self.png())) == 4_090_000)
            #expect(errorCode(try await call(client, .put, "/inApps/v1/messaging/image/\(other)", png: Array("GIF89a".utf8))) == 4_000_161)
            #expect(errorCode(try await call(client, .put, "/inApps/v1/messaging/image/\(other)", png: Self.png(colorType: 6))) == 4_000_161)
            #expect(errorCode(try await call(client, .put, "/inApps/v1/messaging/image/\(other)", png: Self.png(extraChunk: "tRNS"))) == 4_000_161)
            #expect(errorCode(try await call(client, .put, "/inApps/v1/messaging/image/\(other)", png: Self.png(width: 1920))) == 4_000_161)
            #expect(errorCode(try await call(client, .put, "/inApps/v1/messaging/image/\(other)", png: Array(Self.png().dropLast(12)))) == 4_000_161)
            #expect(errorCode(try await call(client, .put, "/inApps/v1/messaging/image/\(other)?imageSize=HUGE", png: Self.png())) == 4_000_216)
            let (badID, message) = try await call(client, .put, "/inApps/v1/messaging/image/not-a-uuid", png: Self.png())
            #expect(badID == .badRequest)
            #expect((message["errorMessage"] as? String)?.contains("UUID") == true)
            #expect(errorCode(try await call(client, .delete, "/inApps/v1/messaging/image/\(other)")) == 4_040_014)
            #expect(try await call(client, .delete, "/inApps/v1/messaging/image/\(icon)").0 == .ok)
            #expect(errorCode(try await call(client, .delete, "/inApps/v1/messaging/image/\(icon)")) == 4_040_014, "Delete Image is not idempotent")

            // Another app of the same store sees nothing of this one's.
            let (_, elsewhere) = try await call(client, .get, "/inApps/v1/messaging/image/list", bundleID: "com.example.other")
            #expect((elsewhere["imageIdentifiers"] as? [Any])?.isEmpty == true)
            let unauthenticated = try await client.execute(uri: "/inApps/v1/messaging/image/list", method: .get) { $0.status }
            #expect(unauthenticated == .unauthorized)
        }
    }

    @Test("Messages: uploads within Apple's limits are APPROVED and listed; each limit, unknown or wrong-size images and duplicates get Apple's error")
    func messages() async throws {
        try await withServer { client in
            let image = "0f7c5a8e-3d1b-4a6e-9c2f-1b2d3e4f5a6b", icon = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
            #expect(try await call(client, .put, "/inApps/v1/messaging/image/\(image)", png: Self.png()).0 == .ok)
            #expect(try await call(client, .put, "/inApps/v1/messaging/image/\(icon)?imageSize=BULLET_POINT", png: Self.png(width: 64, height: 64)).0 == .ok)
            let plain = "a1000000-0000-4000-8000-000000000001", rich = "a1000000-0000-4000-8000-000000000002"
            #expect(try await call(client, .put, "/inApps/v1/messaging/message/\(plain)", json: #"{"header": "Stay with us", "body": "Your plan keeps your history."}"#).0 == .ok)
            let richBody = """
            {"header": "Before you go", "body": "Here is what you keep.", "headerPosition": "ABOVE_IMAGE",
             "image": {"imageIdentifier": "\(image)", "altText": "A chart"},
             "bulletPoints": [{"text": "Unlimited projects", "imageIdentifier": "\(icon)", "altText": "Check mark"}]}
            """
            #expect(try await call(client, .put, "/inApps/v1/messaging/message/\(rich)", json: richBody).0 == .ok)
            let (_, list) = try await call(client, .get, "/inApps/v1/messaging/message/list")
            #expect(list["messageIdentifiers"] as? [[String: String]] == [
                ["messageIdentifier": plain, "messageState": "APPROVED"], ["messageIdentifier": rich, "messageState": "APPROVED"],
            ])

            let next = "/inApps/v1/messaging/message/a1000000-0000-4000-8000-000000000003"
            let long = String(repeating: "x", count: 67)
            let bullet = #"{"text": "t", "imageIdentifier": "\#(icon)", "altText": "a"}"#
            let refusals: [(String, Int)] = [
                (#"{"header": "\#(long)", "body": "b"}"#, 4_000_162),
                (#"{"header": "h", "body": "\#(String(repeating: "y", count: 145))"}"#, 4_000_163),
                (#"{"header": "h", "body": "b", "image": {"imageIdentifier": "\#(image)", "altText": "\#(String(repeating: "z", count: 151))"}}"#, 4_000_175),
                (#"{"header": "h", "body": "b", "bulletPoints": [\#(Array(repeating: bullet, count: 6).joined(separator: ","))]}"#, 4_000_218),
                (#"{"header": "h", "body": "b", "bulletPoints": [{"text": "\#(long)", "imageIdentifier": "\#(icon)", "altText": "a"}]}"#, 4_000_219),
                (#"{"header": "h", "body": "b", "headerPosition": "ABOVE_IMAGE"}"#, 4_000_224),
                (#"{"header": "h", "body": "b", "image": {"imageIdentifier": "\#(icon)", "altText": "a"}}"#, 4_000_216),
                (#"{"header": "h", "body": "b", "image": {"imageIdentifier": "b2000000-0000-4000-8000-000000000009", "altText": "a"}}"#, 4_040_014),
                (#"{"body": "no header"}"#, 4_000_000),
            ]
            for (body, code) in refusals {
                #expect(errorCode(try await call(client, .put, next, json: body)) == code, "\(body)")
            }
            #expect(errorCode(try await call(client, .put, "/inApps/v1/messaging/message/\(plain)", json: #"{"header": "h", "body": "b"}"#)) == 4_090_001)
            #expect(errorCode(try await call(client, .delete, "/inApps/v1/messaging/image/\(image)")) == 4_030_019, "the rich message shows it")
            #expect(try await call(client, .delete, "/inApps/v1/messaging/message/\(rich)").0 == .ok)
            #expect(try await call(client, .delete, "/inApps/v1/messaging/image/\(image)").0 == .ok, "deletable once its message is gone")
            #expect(errorCode(try await call(client, .delete, "/inApps/v1/messaging/message/\(rich)")) == 4_040_015)
        }
    }

    @Test("Default messages: configured per subscription and locale, only with an APPROVED message and images; Apple's errors otherwise")
    func defaultMessages() async throws {
        try await withServer { client in
            let image = "0f7c5a8e-3d1b-4a6e-9c2f-1b2d3e4f5a6b", message = "a1000000-0000-4000-8000-000000000001"
            let withImage = "a1000000-0000-4000-8000-000000000002"
            #expect(try await call(client, .put, "/inApps/v1/messaging/image/\(image)", png: Self.png()).0 == .ok)
            #expect(try await call(client, .put, "/inApps/v1/messaging/message/\(message)", json: #"{"header": "Stay", "body": "Please"}"#).0 == .ok)
            let imageMessage = #"{"header": "Stay", "body": "Look", "image": {"imageIdentifier": "\#(image)", "altText": "A chart"}}"#
            #expect(try await call(client, .put, "/inApps/v1/messaging/message/\(withImage)", json: imageMessage).0 == .ok)
            let path = "/inApps/v1/messaging/default/monthly/en-US"
            #expect(errorCode(try await call(client, .get, path)) == 4_040_020)
            #expect(try await call(client, .put, path, json: #"{"messageIdentifier": "\#(message)"}"#).0 == .ok)
            #expect(try await call(client, .put, path, json: #"{"messageIdentifier": "\#(message)"}"#).0 == .ok, "idempotent")
            let (status, configured) = try await call(client, .get, path)
            #expect(status == .ok)
            #expect(configured["messageIdentifier"] as? String == message)
            #expect(errorCode(try await call(client, .get, "/inApps/v1/messaging/default/monthly/fr-FR")) == 4_040_020, "per locale")

            #expect(errorCode(try await call(client, .put, "/inApps/v1/messaging/default/premium/en-US", json: #"{"messageIdentifier": "\#(message)"}"#)) == 4_000_023)
            #expect(errorCode(try await call(client, .put, "/inApps/v1/messaging/default/nope/en-US", json: #"{"messageIdentifier": "\#(message)"}"#)) == 4_000_023)
            for locale in ["en_US", "EN-US", "english", "zh-hans"] {
                #expect(errorCode(try await call(client, .get, "/inApps/v1/messaging/default/monthly/\(locale)")) == 4_000_164, "\(locale)")
            }
            #expect(errorCode(try await call(client, .put, path, json: #"{"messageIdentifier": "a1000000-0000-4000-8000-00000000000f"}"#)) == 4_040_015)

            // App Review's verdicts, played through the control API.
            let review = "/control/retention/\(Self.bundleID)"
            #expect(try await call(client, .put, "\(review)/messages/\(message)/state", json: #"{"state": "REJECTED"}"#).0 == .ok)
            #expect(errorCode(try await call(client, .put, path, json: #"{"messageIdentifier": "\#(message)"}"#)) == 4_030_017)
            #expect(try await call(client, .put, "\(review)/images/\(image)/state", json: #"{"state": "PENDING"}"#).0 == .ok)
            #expect(errorCode(try await call(client, .put, path, json: #"{"messageIdentifier": "\#(withImage)"}"#)) == 4_030_018)
            let (_, images) = try await call(client, .get, "/inApps/v1/messaging/image/list")
            #expect((images["imageIdentifiers"] as? [[String: String]])?.first?["imageState"] == "PENDING")
            #expect(try await call(client, .put, "\(review)/messages/\(message)/state", json: #"{"state": "LATER"}"#).0 == .badRequest)
            #expect(try await call(client, .put, "\(review)/messages/a1000000-0000-4000-8000-00000000000f/state", json: #"{"state": "APPROVED"}"#).0 == .notFound)

            #expect(try await call(client, .delete, path).0 == .ok)
            #expect(try await call(client, .delete, path).0 == .ok, "Delete Default Message is idempotent")
            #expect(errorCode(try await call(client, .get, path)) == 4_040_020)

            // A deleted message is no one's default any more.
            #expect(try await call(client, .put, "\(review)/messages/\(message)/state", json: #"{"state": "APPROVED"}"#).0 == .ok)
            #expect(try await call(client, .put, path, json: #"{"messageIdentifier": "\#(message)"}"#).0 == .ok)
            #expect(try await call(client, .delete, "/inApps/v1/messaging/message/\(message)").0 == .ok)
            #expect(errorCode(try await call(client, .get, path)) == 4_040_020)
        }
    }

    @Test("Realtime URL: configured, read and deleted; a URL that is not http(s) is 4000215, none configured is 4040021")
    func realtimeURL() async throws {
        try await withServer { client in
            let path = "/inApps/v1/messaging/realtime/url"
            #expect(errorCode(try await call(client, .get, path)) == 4_040_021)
            #expect(errorCode(try await call(client, .put, path, json: #"{"realtimeURL": "ftp://example.com/retention"}"#)) == 4_000_215)
            #expect(errorCode(try await call(client, .put, path, json: #"{"realtimeURL": "https://example.com/\#(String(repeating: "r", count: 250))"}"#)) == 4_000_215)
            #expect(try await call(client, .put, path, json: #"{"realtimeURL": "https://example.com/retention"}"#).0 == .ok)
            let (status, body) = try await call(client, .get, path)
            #expect(status == .ok)
            #expect(body["realtimeURL"] as? String == "https://example.com/retention")
            #expect(try await call(client, .delete, path).0 == .ok)
            #expect(try await call(client, .delete, path).0 == .ok)
            #expect(errorCode(try await call(client, .get, path)) == 4_040_021)
        }
    }

    /// Records what a Get Retention Message endpoint receives.
    actor Received {
        var payloads: [RealtimeRequestPayload] = []
        func add(_ payload: RealtimeRequestPayload) { payloads.append(payload) }
    }

    @Test("The performance test POSTs signed Get Retention Message requests to the realtime URL and reports Apple's result shape", arguments: [200, 503])
    func performanceTest(endpointStatus: Int) async throws {
        let received = Received()
        let endpoint = Router()
        endpoint.post("retention") { request, context -> Response in
            let body = try await request.decode(as: [String: String].self, context: context)
            let jws = try CompactJWS(try #require(body["signedPayload"]))
            await received.add(try AppStoreJSON.decode(RealtimeRequestPayload.self, from: jws.payload))
            return Response(status: .init(code: endpointStatus), body: ResponseBody(byteBuffer: ByteBuffer(string: "{}")))
        }
        let settings = PerformanceTestSettings(maxConcurrentRequests: 2, totalRequests: 4, responseTimeThreshold: 2_000, successRateThreshold: 75)
        let routes = RetentionMessagingRoutes(engine: engine, authenticator: ServerAPIAuthenticator(keyRings: [ServerAPIKeyRing(keys: [key])]), logger: Logger(label: "test"), performanceTest: settings)
        try await Application(router: endpoint).test(.live) { endpointClient in
            let port = try #require(endpointClient.port)
            let router = Router(context: StoreRequestContext.self)
            routes.add(to: router)
            ControlRoutes(engine: engine, notificationSender: nil).add(to: router)
            try await Application(router: router).test(.router) { client in
                let (_, bought) = try await call(client, .post, "/control/purchases", json: #"{"productId": "monthly", "bundleId": "\#(Self.bundleID)"}"#)
                let subscription = try #require(bought["transactionId"] as? String)
                let (_, premium) = try await call(client, .post, "/control/purchases", json: #"{"productId": "premium", "bundleId": "\#(Self.bundleID)"}"#)
                let test = "/inApps/v1/messaging/performanceTest"
                let request = #"{"originalTransactionId": "\#(subscription)"}"#
                #expect(errorCode(try await call(client, .post, test, json: request)) == 4_040_021, "no realtime URL yet")
                #expect(try await call(client, .put, "/inApps/v1/messaging/realtime/url", json: #"{"realtimeURL": "http://127.0.0.1:\#(port)/retention"}"#).0 == .ok)
                #expect(errorCode(try await call(client, .post, test, json: "{}")) == 4_000_211)
                #expect(errorCode(try await call(client, .post, test, json: #"{"originalTransactionId": "abc"}"#)) == 4_000_006)
                #expect(errorCode(try await call(client, .post, test, json: #"{"originalTransactionId": "2000000000000999"}"#)) == 4_040_010)
                #expect(errorCode(try await call(client, .post, test, json: #"{"originalTransactionId": "\#(try #require(premium["transactionId"] as? String))"}"#)) == 4_000_047)

                let (status, started) = try await call(client, .post, test, json: request)
                #expect(status == .ok)
                let requestID = try #require(started["requestId"] as? String)
                let config = try #require(started["config"] as? [String: Int])
                #expect(config == ["maxConcurrentRequests": 2, "totalRequests": 4, "totalDuration": 6_000, "responseTimeThreshold": 2_000, "successRateThreshold": 75])
                #expect(errorCode(try await call(client, .post, test, json: request)) == 4_000_213, "one test at a time")

                await routes.store.performanceTestFinished(try #require(UUID(uuidString: requestID)))
                let (_, result) = try await call(client, .get, "/inApps/v1/messaging/performanceTest/result/\(requestID)")
                #expect(result["target"] as? String == "http://127.0.0.1:\(port)/retention")
                #expect(result["numPending"] as? Int == 0)
                let times = try #require(result["responseTimes"] as? [String: Int])
                #expect(Set(times.keys) == ["average", "p50", "p90", "p95", "p99"])
                #expect(times["p50"]! <= times["p99"]!)
                if endpointStatus == 200 {
                    #expect(result["result"] as? String == "PASS")
                    #expect(result["successRate"] as? Int == 100)
                    #expect(times["p99"]! < 2_000, "answers on loopback are timed, not timed out")
                    #expect((result["failures"] as? [String: Int])?.isEmpty == true)
                } else {
                    #expect(result["result"] as? String == "FAIL")
                    #expect(result["successRate"] as? Int == 0)
                    #expect(result["failures"] as? [String: Int] == ["UNSUCCESSFUL_HTTP_RESPONSE_CODE": 4])
                }
                let payloads = await received.payloads
                #expect(payloads.count == 4)
                #expect(Set(payloads.map(\.requestIdentifier)).count == 4, "a new requestIdentifier per request")
                #expect(payloads.allSatisfy { $0.originalTransactionId == subscription && $0.productId == "monthly" && $0.userLocale == "en-US" && $0.environment == "Sandbox" })
                #expect(payloads.first?.signedDate == Self.start, "signed on the store's clock")

                #expect(errorCode(try await call(client, .get, "/inApps/v1/messaging/performanceTest/result/not-a-uuid")) == 4_000_212)
                #expect(errorCode(try await call(client, .get, "/inApps/v1/messaging/performanceTest/result/\(UUID().uuidString)")) == 4_040_018)
                #expect(errorCode(try await call(client, .get, "/inApps/v1/messaging/performanceTest/result/\(requestID)", bundleID: "com.example.other")) == 4_040_018)
            }
        }
    }

    @Test("Locale short codes: a lowercase language, optionally a region or a script", arguments: [
        ("en-US", true), ("ja", true), ("zh-Hans", true), ("yue", true), ("en_US", false), ("EN", false), ("zh-hans", false), ("en-US-x", false), ("", false),
    ])
    func localeShortCodes(_ text: String, _ valid: Bool) {
        #expect(RetentionMessagingRoutes.isLocaleShortCode(text) == valid)
    }
}
