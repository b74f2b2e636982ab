import AppStoreEngine
import AppStoreFormats
import AppStoreServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StoreKitConfiguration
import Testing

/// The transaction manager's server side: the page and its sections rendered from the store, and the control API
/// routes it adds (the notification log, redelivery, settings, what a clock move fired). The page in a browser is
/// `TransactionManagerBrowserTests`.
@Suite("Transaction manager")
struct TransactionManagerTests {
    static let start = Date(timeIntervalSince1970: 1_768_478_400)

    func makeServer() -> StoreServer {
        let catalog = Catalog(products: [
            CatalogProduct(id: "premium", type: .nonConsumable, price: Decimal(string: "4.99")!),
            CatalogProduct(id: "monthly", type: .autoRenewable, price: Decimal(string: "2.99")!,
                           subscription: SubscriptionTerms(groupID: "G1", level: 1, period: SubscriptionPeriod(value: 1, unit: .month))),
        ])
        let engine = StoreEngine(catalog: catalog, storage: InMemoryStorage(), clock: VirtualClock(start: Self.start), signer: .ephemeral)
        var server = StoreServer(engine: engine, port: 0)
        server.tenants = TenantDirectory { name, _ in
            TenantDirectory.Tenant(engine: StoreEngine(
                tenantID: name, catalog: catalog, storage: InMemoryStorage(), clock: VirtualClock(start: Self.start), signer: .ephemeral
            ))
        }
        return server
    }

    func call(_ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil) async throws -> (HTTPResponse.Status, Any?) {
        try await client.execute(uri: uri, method: method, headers: [.contentType: "application/json"], body: body.map { ByteBuffer(string: $0) }) { response in
            (response.status, try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)))
        }
    }

    func page(_ client: some TestClientProtocol, _ uri: String) async throws -> (status: HTTPResponse.Status, type: String?, text: String) {
        try await client.execute(uri: uri, method: .get) { response in
            (response.status, response.headers[.contentType], String(buffer: response.body))
        }
    }

    func buy(_ client: some TestClientProtocol, _ product: String, account: String) async throws -> String {
        let (status, answer) = try await call(client, .post, "/control/purchases", #"{"productId": "\#(product)", "account": "\#(account)"}"#)
        #expect(status == .ok)
        return try #require((answer as? [String: Any])?["transactionId"] as? String)
    }

    @Test("The page lists the store's transactions newest first, with the actions their state allows, and filters them", arguments: RouteTransport.allCases)
    func pageAndSections(transport: RouteTransport) async throws {
        let server = makeServer()
        try await transport.test(server) { client in
            let premium = try await buy(client, "premium", account: "alice")
            let monthly = try await buy(client, "monthly", account: "bob")
            #expect(try await call(client, .post, "/control/transactions/\(premium)/refund").0 == .ok)

            let whole = try await page(client, "/")
            #expect(whole.status == .ok)
            #expect(whole.type == "text/html; charset=utf-8")
            #expect(whole.text.contains(#"<body data-base="/">"#))
            let newest = try #require(whole.text.range(of: #"data-transaction="\#(monthly)""#))
            let older = try #require(whole.text.range(of: #"data-transaction="\#(premium)""#))
            #expect(newest.lowerBound < older.lowerBound)
            // A refunded transaction offers no second refund; the subscription's does.
            func row(_ id: String) throws -> Substring {
                let start = try #require(whole.text.range(of: #"data-transaction="\#(id)""#))
                let end = try #require(whole.text.range(of: "</tr>", range: start.upperBound..<whole.text.endIndex))
                return whole.text[start.lowerBound..<end.lowerBound]
            }
            #expect(!(try row(premium)).contains(#"data-operation="refundTransaction""#))
            #expect((try row(monthly)).contains(#"data-operation="refundTransaction""#))
            #expect((try row(monthly)).contains(#"data-id="\#(monthly)""#))
            // Every switch the control API takes, and the tenants to pick from.
            // Offer codes, Family Sharing and a reset, for a server with tenants.
            #expect(whole.text.contains(#"data-operation="redeemOfferCode""#))
            #expect(whole.text.contains(#"data-operation="joinFamily""#))
            #expect(whole.text.contains(#"data-operation="resetTenant" data-name="default" data-server-wide"#))
            // The page sends each form where the control API's document puts its operation, and writes no path itself.
            let operationsJSON = try #require(whole.text.range(of: #"<script type="application/json" id="control-operations">"#))
            let operations = try #require(try JSONSerialization.jsonObject(
                with: Data(whole.text[operationsJSON.upperBound...].prefix { $0 != "<" }.utf8)
            ) as? [String: [String: String]])
            #expect(operations["refundTransaction"] == ["method": "POST", "path": "control/transactions/{id}/refund"])
            #expect(operations.count == ControlOperation.allCases.count)
            for field in ["askToBuyEnabled", "interruptedPurchasesEnabled", "failTransactionsEnabled", "renewalBillingIssuesEnabled", "billingGracePeriodEnabled", "renewalLimit", "storefront"] {
                #expect(whole.text.contains(#"name="\#(field)""#), "no \(field) on the page")
            }

            let bobs = try await page(client, "/manage/sections/transactions?account=bob")
            #expect(bobs.text.contains(#"data-transaction="\#(monthly)""#))
            #expect(!bobs.text.contains(#"data-transaction="\#(premium)""#))
            let refunded = try await page(client, "/manage/sections/transactions?state=refunded")
            #expect(refunded.text.contains(#"data-transaction="\#(premium)""#) && !refunded.text.contains(#"data-transaction="\#(monthly)""#))

            let unknown = try await page(client, "/manage/sections/nope")
            #expect(unknown.status == .notFound)
            #expect(unknown.text.contains("transactions"))
            #expect(try await page(client, "/manage/assets/manager.js").type == "text/javascript; charset=utf-8")
            #expect(try await page(client, "/manage/assets/manager.css").type == "text/css; charset=utf-8")
            #expect(try await page(client, "/manage/assets/other.js").status == .notFound)
        }
    }

    @Test("A long history shows its newest 200 transactions and says how many more the filters reach", arguments: RouteTransport.allCases)
    func longHistory(transport: RouteTransport) async throws {
        let server = makeServer()
        for index in 0..<205 {
            _ = try await server.engine.purchase(PurchaseRequest(productID: index < 5 ? "monthly" : "premium", accountID: "buyer\(index)", bundleID: StoreDefaults.bundleID))
        }
        try await transport.test(server) { client in
            let section = try await page(client, "/manage/sections/transactions")
            #expect(section.text.components(separatedBy: "<tr class=\"row\"").count - 1 == 200)
            #expect(section.text.contains("5 older transactions are not shown"))
            let filtered = try await page(client, "/manage/sections/transactions?product=monthly")
            #expect(filtered.text.components(separatedBy: "<tr class=\"row\"").count - 1 == 5)
            #expect(!filtered.text.contains("not shown"))
        }
    }

    @Test("An expanded row shows the transaction's JWS, its receipt entry and its subscription's renewal info, decoded", arguments: RouteTransport.allCases)
    func expandedRows(transport: RouteTransport) async throws {
        let server = makeServer()
        try await transport.test(server) { client in
            let monthly = try await buy(client, "monthly", account: "bob")
            let detail = try await page(client, "/manage/transactions/\(monthly)")
            #expect(detail.status == .ok)
            // Mustache escapes the JSON's quotes; what a browser shows is the JSON.
            let shown = detail.text.replacingOccurrences(of: "&quot;", with: "\"")
            #expect(shown.contains(#""transactionId": "\#(monthly)""#))
            #expect(shown.contains(#""autoRenewProductId": "monthly""#))
            #expect(shown.contains(#""product_id" : "monthly""#))
            #expect(shown.contains(#"<form data-id="\#(monthly)" class="inline" aria-label="Subscription actions">"#))
            #expect(shown.contains(#"data-operation="subscriptionExpire""#))
            #expect(try await page(client, "/manage/transactions/2000000000000099").status == .notFound)

            let (_, log) = try await call(client, .get, "/control/notifications")
            let uuid = try #require((log as? [[String: Any]])?.first?["notificationUUID"] as? String)
            let notification = try await page(client, "/manage/notifications/\(uuid)")
            let payload = notification.text.replacingOccurrences(of: "&quot;", with: "\"")
            #expect(payload.contains(#""notificationType": "SUBSCRIBED""#))
            // The transaction it carries is decoded in place.
            #expect(payload.contains(#""signedTransactionInfo": {"#))
        }
    }

    @Test("A tenant's page links to its own routes and offers the other tenants", arguments: RouteTransport.allCases)
    func tenantPage(transport: RouteTransport) async throws {
        let server = makeServer()
        try await transport.test(server) { client in
            #expect(try await call(client, .post, "/t/checkout/control/purchases", #"{"productId": "premium"}"#).0 == .ok)
            let tenant = try await page(client, "/t/checkout/")
            #expect(tenant.text.contains(#"<body data-base="/t/checkout/">"#))
            #expect(tenant.text.contains(#"href="/t/checkout/manage/assets/manager.css""#))
            #expect(tenant.text.contains(#"<option value="/t/checkout/" selected>checkout</option>"#))
            #expect(tenant.text.contains(#"<option value="/">default</option>"#))
            #expect(tenant.text.contains("data-transaction="))
            #expect(!(try await page(client, "/").text.contains("data-transaction=")), "the server's own store bought nothing")
        }
    }

    @Test("The notification log: delivery state and attempts, one notification with its signed payload, redelivery, and precise refusals", arguments: RouteTransport.allCases)
    func notificationLog(transport: RouteTransport) async throws {
        let server = makeServer()
        try await transport.test(server) { client in
            _ = try await buy(client, "premium", account: "alice")
            let (_, log) = try await call(client, .get, "/control/notifications")
            let entry = try #require((log as? [[String: Any]])?.first)
            #expect(entry["notificationType"] as? String == "ONE_TIME_CHARGE")
            #expect(entry["delivery"] as? String == "pending")
            #expect((entry["attempts"] as? [Any])?.isEmpty == true)
            let uuid = try #require(entry["notificationUUID"] as? String)

            let (status, one) = try await call(client, .get, "/control/notifications/\(uuid)")
            #expect(status == .ok)
            let signed = try #require((one as? [String: Any])?["signedPayload"] as? String)
            let payload = try CompactJWS(signed).decodePayload(as: ResponseBodyV2DecodedPayload.self)
            #expect(payload.notificationUUID == uuid)

            let (redelivered, answer) = try await call(client, .post, "/control/notifications/\(uuid)/redeliver")
            #expect(redelivered == .ok)
            #expect((answer as? [String: Any])?["delivery"] as? String == "pending")
            #expect((answer as? [String: Any])?["nextAttemptDate"] as? String == "2026-01-15T12:00:00Z")

            let (missing, error) = try await call(client, .post, "/control/notifications/\(UUID().uuidString)/redeliver")
            #expect(missing == .notFound)
            #expect(((error as? [String: Any])?["error"] as? String)?.contains("GET /control/notifications") == true)
            #expect(try await call(client, .get, "/control/notifications/not-a-uuid").0 == .badRequest)
            #expect(try await call(client, .get, "/control/notifications?since=yesterday").0 == .badRequest)
            let (_, later) = try await call(client, .get, "/control/notifications?since=2027-01-01T00:00:00Z")
            #expect((later as? [Any])?.isEmpty == true)
        }
    }

    @Test("Moving the clock answers what it fired; GET /control/settings answers the switches", arguments: RouteTransport.allCases)
    func clockAndSettings(transport: RouteTransport) async throws {
        let server = makeServer()
        try await transport.test(server) { client in
            _ = try await buy(client, "monthly", account: "bob")
            let (_, moved) = try await call(client, .post, "/control/clock/advance", #"{"by": "1mo"}"#)
            let fired = try #require((moved as? [String: Any])?["fired"] as? [[String: Any]])
            #expect(fired.map { $0["notificationType"] as? String } == ["DID_RENEW"])
            let (_, quiet) = try await call(client, .post, "/control/clock/advance", #"{"by": "1d"}"#)
            #expect(((quiet as? [String: Any])?["fired"] as? [Any])?.isEmpty == true)

            #expect(try await call(client, .put, "/control/settings", #"{"askToBuyEnabled": true, "storefront": "FRA"}"#).0 == .ok)
            let (_, settings) = try await call(client, .get, "/control/settings")
            #expect((settings as? [String: Any])?["askToBuyEnabled"] as? Bool == true)
            #expect((settings as? [String: Any])?["storefront"] as? String == "FRA")
        }
    }
}
