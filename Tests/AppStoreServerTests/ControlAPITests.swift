import AppStoreEngine
import AppStoreFormats
import AppStoreServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StoreKitConfiguration
import Testing

/// The control API: what SKTestSession is to Swift, over HTTP.
@Suite("Control API")
struct ControlAPITests {
    static let start = Date(timeIntervalSince1970: 1_768_478_400)

    func makeServer() -> StoreServer {
        let catalog = Catalog(products: [
            CatalogProduct(id: "premium", type: .nonConsumable, price: Decimal(string: "4.99")!),
            CatalogProduct(id: "shared", type: .nonConsumable, price: Decimal(string: "1.99")!, isFamilyShareable: true),
            CatalogProduct(id: "monthly", type: .autoRenewable, price: Decimal(string: "2.99")!,
                           subscription: SubscriptionTerms(groupID: "G1", level: 1, period: SubscriptionPeriod(value: 1, unit: .month))),
        ])
        let engine = StoreEngine(catalog: catalog, storage: InMemoryStorage(), clock: VirtualClock(start: Self.start), signer: .ephemeral)
        return StoreServer(engine: engine, port: 0)
    }

    /// Sends a request and returns the status and the JSON body.
    func call(_ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil) async throws -> (HTTPResponse.Status, Any?) {
        try await client.execute(uri: uri, method: method, headers: [.contentType: "application/json"], body: body.map { ByteBuffer(string: $0) }) { response in
            (response.status, try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)))
        }
    }

    @Test("Buy, refund, switch Ask to Buy on and approve, move the clock and see the renewal, act on the subscription", arguments: RouteTransport.allCases)
    func sessionOverHTTP(transport: RouteTransport) async throws {
        let server = makeServer()
        try await transport.test(server) { client in
            let (status, bought) = try await call(client, .post, "/control/purchases", #"{"productId": "premium", "account": "alice", "bundleId": "com.example.demo"}"#)
            #expect(status == .ok)
            let premium = try #require(bought as? [String: Any])
            #expect(premium["state"] as? String == "purchased")
            #expect(premium["account"] as? String == "alice")
            #expect((premium["signedTransaction"] as? String)?.split(separator: ".").count == 3)
            let premiumID = try #require(premium["transactionId"] as? String)
            let (_, refunded) = try await call(client, .post, "/control/transactions/\(premiumID)/refund")
            #expect((refunded as? [String: Any])?["revocationDate"] != nil)

            #expect(try await call(client, .put, "/control/settings", #"{"askToBuyEnabled": true}"#).0 == .ok)
            let (_, pending) = try await call(client, .post, "/control/purchases", #"{"productId": "monthly"}"#)
            let monthly = try #require(pending as? [String: Any])
            #expect(monthly["state"] as? String == "pending-approval")
            let monthlyID = try #require(monthly["transactionId"] as? String)
            let (_, approved) = try await call(client, .post, "/control/transactions/\(monthlyID)/approve")
            #expect((approved as? [String: Any])?["state"] as? String == "purchased")

            let (_, clock) = try await call(client, .post, "/control/clock/advance", #"{"by": "1mo"}"#)
            #expect((clock as? [String: Any])?["now"] as? String == "2026-02-15T12:00:00Z")
            let engine = server.engine
            #expect(try await engine.transactions(TransactionQuery(originalID: UInt64(monthlyID)!)).count == 2)

            let (_, autoRenew) = try await call(client, .post, "/control/subscriptions/\(monthlyID)/auto-renew", #"{"enabled": false}"#)
            #expect((autoRenew as? [String: Any])?["autoRenewEnabled"] as? Bool == false)
            let (_, notifications) = try await call(client, .get, "/control/notifications")
            #expect((notifications as? [[String: Any]])?.map { $0["notificationType"] as? String } == [
                "ONE_TIME_CHARGE", "REFUND", "SUBSCRIBED", "DID_RENEW", "DID_CHANGE_RENEWAL_STATUS",
            ])
        }
    }

    @Test("Request bodies are read as JSONDecoder reads them: escapes, whitespace and unknown members taken, bad JSON and bad UTF-8 refused", arguments: RouteTransport.allCases)
    func requestBodies(transport: RouteTransport) async throws {
        let server = makeServer()
        try await transport.test(server) { client in
            let escaped = #"{ "productId" : "pre\u006dium", "account": "\u00e9lise \"e\"", "extra": [1, {"x": null}] }"#
            let (status, bought) = try await call(client, .post, "/control/purchases", escaped)
            #expect(status == .ok)
            #expect((bought as? [String: Any])?["productId"] as? String == "premium")
            #expect((bought as? [String: Any])?["account"] as? String == "élise \"e\"")
            for bad in [#"{"productId": "premium""#, #"{"productId": 7}"#, #"["premium"]"#, ""] {
                #expect(try await call(client, .post, "/control/purchases", bad).0 == .badRequest, "\(bad)")
            }
            // A body that is not UTF-8 is refused, not repaired into a product identifier.
            var invalid = ByteBuffer(string: #"{"productId": "prem"#)
            invalid.writeBytes([0xC3, 0x28])
            invalid.writeString(#"ium"}"#)
            let status2 = try await client.execute(
                uri: "/control/purchases", method: .post, headers: [.contentType: "application/json"], body: invalid
            ) { $0.status }
            #expect(status2 == .badRequest)
        }
    }

    @Test("POST /control/purchases with an Idempotency-Key answers a retry with the same purchase; the key on another product is 422", arguments: RouteTransport.allCases)
    func idempotentPurchases(transport: RouteTransport) async throws {
        let server = makeServer()
        try await transport.test(server) { client in
            func buy(_ body: String, key: String) async throws -> (HTTPResponse.Status, [String: Any]?) {
                try await client.execute(
                    uri: "/control/purchases", method: .post, headers: [.contentType: "application/json", HTTPField.Name("Idempotency-Key")!: key],
                    body: ByteBuffer(string: body)
                ) { response in
                    (response.status, try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
                }
            }
            let premium = #"{"productId": "premium", "account": "alice", "bundleId": "com.example.demo"}"#
            let (status, first) = try await buy(premium, key: "checkout-1")
            let (retryStatus, retried) = try await buy(premium, key: "checkout-1")
            #expect(status == .ok && retryStatus == .ok)
            #expect(first?["transactionId"] as? String == retried?["transactionId"] as? String)
            #expect(try await server.engine.transactions().count == 1, "the retry bought nothing")

            let (refused, message) = try await buy(#"{"productId": "shared", "account": "alice", "bundleId": "com.example.demo"}"#, key: "checkout-1")
            #expect(refused == .unprocessableContent)
            #expect((message?["error"] as? String)?.contains("Send a new key") == true)
        }
    }

    @Test("Requests the store refuses answer 400 or 404 with a message saying what to send", arguments: RouteTransport.allCases)
    func refusals(transport: RouteTransport) async throws {
        try await transport.test(makeServer()) { client in
            let (unknownProduct, body) = try await call(client, .post, "/control/purchases", #"{"productId": "nope"}"#)
            #expect(unknownProduct == .notFound)
            #expect(((body as? [String: Any])?["error"] as? String)?.contains("premium") == true)
            #expect(try await call(client, .post, "/control/transactions/12x/refund").0 == .badRequest)
            #expect(try await call(client, .post, "/control/transactions/2000000000000099/refund").0 == .notFound)
            let (badDuration, message) = try await call(client, .post, "/control/clock/advance", #"{"by": "soon"}"#)
            #expect(badDuration == .badRequest)
            #expect(((message as? [String: Any])?["error"] as? String)?.contains("1mo") == true)
            #expect(try await call(client, .post, "/control/clock/advance", #"{"to": "2020-01-01T00:00:00Z"}"#).0 == .badRequest)
            #expect(try await call(client, .put, "/control/settings", #"{"storefront": "XXX"}"#).0 == .badRequest)
        }
    }

    @Test("Time rate by Apple's names, promoted purchases, family groups, and listing and clearing transactions", arguments: RouteTransport.allCases)
    func ratesIntentsFamiliesAndListing(transport: RouteTransport) async throws {
        let server = makeServer()
        try await transport.test(server) { client in
            let (rateStatus, rate) = try await call(client, .put, "/control/clock/rate", #"{"timeRate": "oneSecondIsOneDay"}"#)
            #expect(rateStatus == .ok)
            #expect((rate as? [String: Any])?["timeRate"] as? Int == 6)
            #expect(try await call(client, .put, "/control/clock/rate", #"{"timeRate": "fast"}"#).0 == .badRequest)

            let (_, intent) = try await call(client, .post, "/control/purchase-intents", #"{"productId": "premium", "bundleId": "com.example.demo"}"#)
            #expect((intent as? [String: Any])?["productID"] as? String == "premium")
            #expect(try await server.engine.purchaseIntents(accountID: "default", bundleID: "com.example.demo").count == 1)
            #expect(try await call(client, .post, "/control/purchase-intents", #"{"productId": "nothing"}"#).0 == .notFound)

            #expect(try await call(client, .post, "/control/purchases", #"{"productId": "shared", "account": "alice", "bundleId": "com.example.demo"}"#).0 == .ok)
            #expect(try await call(client, .post, "/control/families/smiths/members", #"{"account": "alice"}"#).0 == .ok)
            let (_, joined) = try await call(client, .post, "/control/families/smiths/members", #"{"account": "bob"}"#)
            #expect(((joined as? [String: Any])?["shared"] as? [String])?.count == 1)
            let (_, bobs) = try await call(client, .get, "/control/transactions?account=bob")
            #expect((bobs as? [[String: Any]])?.first?["origin"] as? String == "familyShare")
            let (_, left) = try await call(client, .delete, "/control/families/members/bob")
            #expect(((left as? [String: Any])?["revoked"] as? [String])?.count == 1)

            let (_, all) = try await call(client, .get, "/control/transactions")
            #expect((all as? [[String: Any]])?.count == 2)
            #expect(try await call(client, .delete, "/control/transactions").0 == .ok)
            let (_, none) = try await call(client, .get, "/control/transactions")
            #expect((none as? [[String: Any]])?.isEmpty == true)
        }
    }
}

extension ControlAPITests {
    @Test("A clock move too long to apply at once, or past the certificates' end, is a 400 saying to move in steps (schemathesis)", arguments: RouteTransport.allCases)
    func clockMovesAreBounded(transport: RouteTransport) async throws {
        try await transport.test(makeServer()) { client in
            #expect(try await call(client, .post, "/control/purchases", #"{"productId": "monthly"}"#).0 == .ok)
            // Past 2099: the store's certificates end there.
            let (late, lateBody) = try await call(client, .post, "/control/clock/advance", #"{"to": "2150-01-01T00:00:00Z"}"#)
            #expect(late == .badRequest)
            #expect(((lateBody as? [String: Any])?["error"] as? String)?.contains("2099-12-31T23:59:59Z") == true)
            // A renewal every ten seconds: twelve years would be 38 million renewals, applied before the answer.
            #expect(try await call(client, .put, "/control/clock/rate", #"{"timeRate": "oneRenewalEveryTenSeconds"}"#).0 == .ok)
            let (long, longBody) = try await call(client, .post, "/control/clock/advance", #"{"to": "2038-01-01T00:00:00Z"}"#)
            #expect(long == .badRequest)
            #expect(((longBody as? [String: Any])?["error"] as? String)?.contains("smaller steps") == true)
            #expect(try await call(client, .post, "/control/clock/advance", #"{"by": "1y"}"#).0 == .badRequest)
            // A move within the bound still moves the clock.
            let (short, shortBody) = try await call(client, .post, "/control/clock/advance", #"{"by": "1m"}"#)
            #expect(short == .ok)
            #expect((shortBody as? [String: Any])?["now"] as? String == "2026-01-15T12:01:00Z")
        }
    }
}
