import AppStoreEngine
import AppStoreFormats
@testable import AppStoreServer
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import StoreKitConfiguration
import Testing

/// The External Purchase Server API over HTTP on loopback: a token made through the control API as an app gets it,
/// reported with `PUT /externalPurchase/v1/reports` under an App Store Server API key, retrieved by its request
/// identifier, and refused with Apple's `SendReportErrorResponse` codes.
@Suite("External Purchase Server API")
struct ExternalPurchaseAPITests {
    static let start = Date(timeIntervalSince1970: 1_768_478_400)
    static let bundleID = "com.example.demo"
    let privateKeyBytes = P256.Signing.PrivateKey().rawRepresentation
    let engine = StoreEngine(
        catalog: Catalog(products: [CatalogProduct(id: "coins", type: .consumable, price: Decimal(string: "0.99")!)]),
        storage: InMemoryStorage(), clock: VirtualClock(start: Self.start), signer: .ephemeral
    )

    var privateKey: P256.Signing.PrivateKey { try! P256.Signing.PrivateKey(rawRepresentation: privateKeyBytes) }
    var key: ServerAPIKey { ServerAPIKey(keyID: "EXTERNAL01", issuerID: "issuer-1", publicKey: privateKey.publicKey, created: Self.start) }

    /// A bearer token for `bundleID`, as Apple's libraries make one.
    func token(bundleID: String) throws -> String {
        func base64URL(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        func encode(_ object: [String: Any]) throws -> String {
            base64URL(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        }
        let claims: [String: Any] = ["iss": "issuer-1", "aud": "appstoreconnect-v1", "bid": bundleID, "exp": Int(Date().timeIntervalSince1970) + 600]
        let input = try encode(["alg": "ES256", "kid": "EXTERNAL01", "typ": "JWT"]) + "." + encode(claims)
        return input + "." + base64URL(try privateKey.signature(for: Data(input.utf8)).rawRepresentation)
    }

    /// Sends a request, authenticated for `bundleID` unless it is `nil`; returns the status and the JSON body.
    func call(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, json: String? = nil, bundleID: String? = Self.bundleID
    ) async throws -> (status: HTTPResponse.Status, body: [String: Any]) {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let bundleID { headers[.authorization] = "Bearer " + (try token(bundleID: bundleID)) }
        return try await client.execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) }) { response in
            (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [String: Any] ?? [:])
        }
    }

    func withServer(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await StoreServer(engine: engine, port: 0, apiKeys: ServerAPIKeyRing(keys: [key])).makeApplication().test(.live) { client in try await body(client) }
    }

    static func report(_ request: String, _ id: String, _ status: String, lineItems: String? = nil) -> String {
        let items = lineItems.map { #","lineItems":\#($0)"# } ?? ""
        return #"{"requestIdentifier":"\#(request)","externalPurchaseId":"\#(id)","status":"\#(status)"\#(items)}"#
    }

    @Test("A token the control API makes as the app gets it is reported and retrieved; unknown tokens, other apps' tokens, wrong statuses, out-of-period line items and reused identifiers get Apple's codes")
    func sendAndRetrieve() async throws {
        try await withServer { client in
            let made = try await call(client, .post, "/control/external-purchase-tokens", json: #"{"account":"ana","bundleId":"\#(Self.bundleID)","tokenType":"SERVICES"}"#, bundleID: nil)
            #expect(made.status == .ok, "\(made.body)")
            let id = try #require(made.body["externalPurchaseId"] as? String)
            #expect(id.hasPrefix("SANDBOX_") && made.body["tokenType"] as? String == "SERVICES")
            let value = try #require(made.body["value"] as? String)
            #expect(try ExternalPurchaseToken(encodedValue: value).externalPurchaseId == id, "the value decodes to the token")
            let created = try #require((made.body["tokenCreationDate"] as? NSNumber)?.int64Value)

            let request = UUID().uuidString
            let item = #"[{"lineItemId":"li-1","creationDate":\#(created + 60_000),"eventType":"BUY","productType":"ONE_TIME_BUY","amountTaxInclusive":1990}]"#
            let sent = try await call(client, .put, "/externalPurchase/v1/reports", json: Self.report(request, id, "LINE_ITEM", lineItems: item))
            #expect(sent.status == .ok && sent.body["requestIdentifier"] as? String == request, "\(sent.body)")

            let retrieved = try await call(client, .get, "/externalPurchase/v1/reports/\(request)")
            #expect(retrieved.status == .ok)
            let report = try #require(retrieved.body["report"] as? [String: Any], "\(retrieved.body)")
            #expect(report["externalPurchaseId"] as? String == id && report["status"] as? String == "LINE_ITEM")
            #expect(((report["lineItems"] as? [[String: Any]])?.first?["amountTaxInclusive"] as? NSNumber)?.intValue == 1990, "kept as sent")

            func error(_ answer: (status: HTTPResponse.Status, body: [String: Any])) -> [Int] {
                #expect(answer.status == .badRequest)
                return ((answer.body["errors"] as? [[String: Any]]) ?? []).compactMap { ($0["errorCode"] as? NSNumber)?.intValue }
            }
            let notFound = try await call(client, .get, "/externalPurchase/v1/reports/\(UUID().uuidString)")
            #expect(notFound.status == .badRequest && (notFound.body["errorCode"] as? NSNumber)?.intValue == 3 && notFound.body["fieldName"] as? String == "requestIdentifier")
            #expect(try await call(client, .get, "/externalPurchase/v1/reports/\(request)", bundleID: "other.app").status == .badRequest, "another app's report")
            #expect(try await call(client, .put, "/externalPurchase/v1/reports", json: Self.report(request, id, "LINE_ITEM"), bundleID: nil).status == .unauthorized)

            #expect(error(try await call(client, .put, "/externalPurchase/v1/reports", json: Self.report(UUID().uuidString, "SANDBOX_nope", "NO_LINE_ITEM"))) == [3])
            #expect(error(try await call(client, .put, "/externalPurchase/v1/reports", json: Self.report(UUID().uuidString, id, "NO_LINE_ITEM"), bundleID: "other.app")) == [3])
            #expect(error(try await call(client, .put, "/externalPurchase/v1/reports", json: Self.report(request, id, "LINE_ITEM", lineItems: item))) == [1])
            #expect(error(try await call(client, .put, "/externalPurchase/v1/reports", json: Self.report(UUID().uuidString, id, "NO_LINE_ITEM"))) == [8])
            #expect(error(try await call(client, .put, "/externalPurchase/v1/reports", json: Self.report(UUID().uuidString, id, "LINE_ITEM"))) == [9])
            let late = #"[{"lineItemId":"li-2","creationDate":\#(created + 7_200_000)}]"#
            let outOfRange = try await call(client, .put, "/externalPurchase/v1/reports", json: Self.report(UUID().uuidString, id, "LINE_ITEM", lineItems: late))
            #expect(error(outOfRange) == [36])
            #expect((outOfRange.body["errors"] as? [[String: Any]])?.first?["lineItemId"] as? String == "li-2")
            let malformed = try await call(client, .put, "/externalPurchase/v1/reports", json: Self.report("not-a-uuid", id, "NO_LINE_ITEM"))
            #expect(malformed.status == .badRequest && malformed.body.isEmpty)
            for body in ["[" + Self.report(UUID().uuidString, id, "NO_LINE_ITEM") + "]", "not json", #"{"status": 1}"#] {
                let refused = try await call(client, .put, "/externalPurchase/v1/reports", json: body)
                #expect(refused.status == .badRequest && refused.body.isEmpty, "\(body)")
            }

            let notice = try await call(client, .post, "/control/external-purchase-tokens", json: #"{"account":"ana","bundleId":"\#(Self.bundleID)"}"#, bundleID: nil)
            #expect(notice.status == .ok && notice.body["tokenType"] == nil && notice.body["tokenExpirationDate"] == nil)
            let badType = try await call(client, .post, "/control/external-purchase-tokens", json: #"{"account":"ana","tokenType":"LINK_OUT"}"#, bundleID: nil)
            #expect(badType.status == .badRequest && (badType.body["error"] as? String)?.contains("ACQUISITION or SERVICES") == true)
        }
    }
}
