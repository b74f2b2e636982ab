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
import TestProcesses
import Testing

/// The Advanced Commerce API: in-app requests Apple's `AdvancedCommerceAPIInAppSignatureCreator` signs, bought as
/// generic products, and the server endpoints, with what they sign read back by Apple's `SignedDataVerifier`.
@Suite("Advanced Commerce API", .serialized)
struct AdvancedCommerceTests {
    static let start = Date(timeIntervalSince1970: 1_768_478_400)
    static let bundleID = "com.example.demo"
    static let oneTime = "com.example.generic.onetime"
    static let generic = "com.example.generic.subscription"
    static let monthly = "com.example.monthly"
    static let migrated = "com.example.generic.migrated"
    static let catalog = Catalog(products: [
        CatalogProduct(id: oneTime, type: .consumable, price: 1),
        CatalogProduct(id: generic, type: .autoRenewable, price: 1,
                       subscription: SubscriptionTerms(groupID: "G1", level: 1, period: SubscriptionPeriod(value: 1, unit: .year))),
        CatalogProduct(id: monthly, type: .autoRenewable, price: Decimal(string: "9.99")!,
                       subscription: SubscriptionTerms(groupID: "G2", level: 1, period: SubscriptionPeriod(value: 1, unit: .month))),
        CatalogProduct(id: migrated, type: .autoRenewable, price: 1,
                       subscription: SubscriptionTerms(groupID: "G2", level: 1, period: SubscriptionPeriod(value: 1, unit: .month))),
    ])

    /// The In-App Purchase key the developer signs requests with, and the App Store Server API key, as bytes: the key
    /// types are not `Sendable` on Linux.
    let inAppKeyBytes = P256.Signing.PrivateKey().rawRepresentation
    let apiKeyBytes = P256.Signing.PrivateKey().rawRepresentation
    let clock = VirtualClock(start: start)
    let engine: StoreEngine
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-commerce-\(UUID().uuidString)")

    init() async throws {
        engine = StoreEngine(catalog: Self.catalog, storage: InMemoryStorage(), clock: clock, signer: .ephemeral)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let inAppKey = try P256.Signing.PrivateKey(rawRepresentation: inAppKeyBytes)
        try Data(inAppKey.pemRepresentation.utf8).write(to: directory.appendingPathComponent("iap.p8"))
        await engine.addPromotionalOfferKey(PromotionalOfferKey(keyID: "IAPKEY0001", publicKey: inAppKey.publicKey))
    }

    // MARK: Apple's library

    func python(_ arguments: [String]) async throws -> [String: Any] {
        let script = ChildProcess.packageRoot.appendingPathComponent("Tests/AppStoreFormatsTests/Python/advanced_commerce.py").path
        return try await run(script, arguments)
    }

    func run(_ script: String, _ arguments: [String]) async throws -> [String: Any] {
        let finished = try await ChildProcess.tool("python3", [script] + arguments).finished()
        #expect(finished.status != 3, "Apple's library is missing: pip install app-store-server-library==3.1.2")
        let line = finished.output.split(separator: "\n").last.map(String.init) ?? ""
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(finished.output)\(finished.errorOutput)")
    }

    /// A request Apple's signature creator signed at the store's start time (or `at`), with the In-App Purchase key
    /// the store knows unless another key file is given; `extra` adds the script's options of the kind.
    func signedRequest(
        _ kind: String, currency: String = "USD", keyFile: URL? = nil, bundleID: String = Self.bundleID, at date: Date = Self.start, _ extra: [String] = []
    ) async throws -> String {
        let output = try await python([
            "sign", kind, "--key-file", (keyFile ?? directory.appendingPathComponent("iap.p8")).path, "--key-id", "IAPKEY0001",
            "--issuer", "57246542-96fe-1a63-e053-0824d011072a", "--bundle-id", bundleID,
            "--timestamp-ms", String(Int64(date.timeIntervalSince1970 * 1000)), "--currency", currency,
        ] + extra)
        return try #require(output["jws"] as? String)
    }

    /// The body Apple's model of an endpoint's request unstructures to.
    func body(_ kind: String) async throws -> String {
        let output = try await python(["body", kind])
        return String(decoding: try JSONSerialization.data(withJSONObject: try #require(output["body"])), as: UTF8.self)
    }

    /// `token` verified and decoded by Apple's `SignedDataVerifier` (Sandbox, the store's roots).
    func verified(_ kind: String, _ token: String) async throws -> [String: Any] {
        let tokenFile = directory.appendingPathComponent("\(UUID().uuidString).jws")
        try Data(token.utf8).write(to: tokenFile)
        var arguments = [kind, tokenFile.path, "--bundle-id", Self.bundleID, "--environment", "SANDBOX"]
        for (index, root) in try engine.signer.certificateAuthority.rootCertificatesDER.enumerated() {
            let file = directory.appendingPathComponent("root\(index).der")
            try root.write(to: file)
            arguments += ["--root", file.path]
        }
        let output = try await run(ChildProcess.packageRoot.appendingPathComponent("Tests/AppStoreFormatsTests/Python/verify_signed_data.py").path, arguments)
        #expect(output["status"] as? String == "OK", "\(output)")
        return try #require(output["payload"] as? [String: Any])
    }

    // MARK: The server

    var apiKey: P256.Signing.PrivateKey { try! P256.Signing.PrivateKey(rawRepresentation: apiKeyBytes) }

    func token() throws -> String {
        func base64URL(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        func encode(_ object: [String: Any]) throws -> String {
            base64URL(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        }
        let claims: [String: Any] = ["iss": "issuer-1", "aud": "appstoreconnect-v1", "bid": Self.bundleID, "exp": Int(Date().timeIntervalSince1970) + 600]
        let input = try encode(["alg": "ES256", "kid": "COMMERCE01", "typ": "JWT"]) + "." + encode(claims)
        return input + "." + base64URL(try apiKey.signature(for: Data(input.utf8)).rawRepresentation)
    }

    func withServer(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let key = ServerAPIKey(keyID: "COMMERCE01", issuerID: "issuer-1", publicKey: apiKey.publicKey, created: Self.start)
        try await StoreServer(engine: engine, port: 0, apiKeys: ServerAPIKeyRing(keys: [key])).makeApplication().test(.live) { client in try await body(client) }
    }

    /// POSTs `json` to an Advanced Commerce endpoint with a bearer token; the status and the JSON body.
    func post(_ client: some TestClientProtocol, _ path: String, _ json: String) async throws -> (HTTPResponse.Status, [String: Any]) {
        let headers: HTTPFields = [.authorization: "Bearer " + (try token()), .contentType: "application/json"]
        return try await client.execute(uri: "/advancedCommerce/v1/" + path, method: .post, headers: headers, body: ByteBuffer(string: json)) { response in
            (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [String: Any] ?? [:])
        }
    }

    func purchase(_ productID: String, request: String?) async throws -> TransactionRecord {
        var purchase = PurchaseRequest(productID: productID, bundleID: Self.bundleID)
        purchase.advancedCommerceRequest = request
        return try await engine.purchase(purchase)
    }

    func notificationTypes() async throws -> [String] {
        try await engine.notifications().map(\.summary)
    }

    // MARK: In-app requests

    @Test("A one-time charge Apple's signature creator signed buys the generic product at the request's price; Apple's verifier reads its advancedCommerceInfo")
    func oneTimeChargeCarriesItsItem() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let record = try await purchase(Self.oneTime, request: try await signedRequest("one-time-charge"))
        #expect(record.amountCharged == Decimal(string: "12.99")!)
        let payload = try await verified("transaction", try engine.signedTransaction(record))
        #expect(payload["productId"] as? String == Self.oneTime)
        #expect((payload["price"] as? NSNumber)?.int64Value == 12_990)
        #expect(payload["currency"] as? String == "USD")
        let info = try #require(payload["advancedCommerceInfo"] as? [String: Any])
        #expect(info["taxCode"] as? String == "C003-00-1")
        #expect((info["requestReferenceId"] as? String)?.count == 36)
        let items = try #require(info["items"] as? [[String: Any]])
        #expect(items.count == 1)
        #expect(items.first?["SKU"] as? String == "ebook.swift-concurrency")
        #expect(items.first?["displayName"] as? String == "Swift Concurrency")
        #expect((items.first?["price"] as? NSNumber)?.int64Value == 12_990)
        #expect(try await notificationTypes() == ["ONE_TIME_CHARGE"])

        // A second charge of the same generic product is a new sale, not a repurchase.
        let again = try await purchase(Self.oneTime, request: try await signedRequest("one-time-charge"))
        #expect(again.origin == .purchase && again.amountCharged == record.amountCharged)
    }

    @Test("Over the device protocol the request travels with the purchase, and a refusal comes back as invalidAdvancedCommerceRequest")
    func deviceProtocolCarriesTheRequest() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let jws = try await signedRequest("one-time-charge")
        try await withServer { client in
            func buy(_ request: String) async throws -> (HTTPResponse.Status, [String: Any]) {
                let body = try JSONSerialization.data(withJSONObject: [
                    "productID": Self.oneTime, "accountID": "default", "bundleID": Self.bundleID, "quantity": 1, "simulatesAskToBuy": false,
                    "advancedCommerceRequest": request,
                ])
                return try await client.execute(uri: "/device/purchases", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(bytes: body)) { response in
                    (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [String: Any] ?? [:])
                }
            }
            let (status, record) = try await buy(jws)
            #expect(status == .ok, "\(record)")
            let info = try #require(record["advancedCommerceInfo"] as? [String: Any])
            #expect((info["items"] as? [[String: Any]])?.first?["SKU"] as? String == "ebook.swift-concurrency")
            let (refused, error) = try await buy(String(jws.dropLast(4)) + "AAAA")
            #expect(refused == .badRequest)
            #expect(error["error"] as? String == "invalidAdvancedCommerceRequest")
            #expect((error["message"] as? String)?.contains("4000174") == true, "\(error)")
        }
    }

    @Test("A subscription request prices each period item by item: the offer for its periods, then the regular prices")
    func subscriptionRenewsWithItsItems() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let record = try await purchase(Self.generic, request: try await signedRequest("subscription"))
        #expect(record.amountCharged == Decimal(string: "8.98")!, "news 4.99 + sports at its offer 3.99")
        #expect(record.expiresDate == Calendar(identifier: .gregorian).date(byAdding: .month, value: 1, to: Self.start), "the request's P1M, not the product's year")
        #expect(record.appAccountToken == UUID(uuidString: "7e3fb20b-4cdb-47cc-936d-99d65f608138"))
        let transaction = try await verified("transaction", try engine.signedTransaction(record))
        let info = try #require(transaction["advancedCommerceInfo"] as? [String: Any])
        #expect(info["period"] as? String == "P1M")
        #expect((info["descriptors"] as? [String: Any])?["displayName"] as? String == "Bundle")
        let offer = try #require((info["items"] as? [[String: Any]])?.last?["offer"] as? [String: Any])
        #expect(offer["reason"] as? String == "ACQUISITION")
        #expect((offer["periodCount"] as? NSNumber)?.intValue == 2)

        let renewal = try await verified("renewal-info", try await engine.signedRenewalInfo(subscription: record.id))
        #expect((renewal["renewalPrice"] as? NSNumber)?.int64Value == 8_980, "the offer has one more period")
        let renewalItems = try #require((renewal["advancedCommerceInfo"] as? [String: Any])?["items"] as? [[String: Any]])
        #expect(renewalItems.map { $0["SKU"] as? String } == ["news.daily", "sports.live"])

        try await clock.advance(to: record.expiresDate!.addingTimeInterval(60))
        try await clock.advance(to: Calendar(identifier: .gregorian).date(byAdding: .month, value: 2, to: Self.start)!.addingTimeInterval(60))
        let periods = try await engine.transactions(TransactionQuery(originalID: record.id))
        #expect(periods.map(\.amountCharged) == [Decimal(string: "8.98")!, Decimal(string: "8.98")!, Decimal(string: "12.98")!])
        #expect(try await notificationTypes() == ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_RENEW"])
    }

    @Test("Requests the App Store refuses are refused with Apple's code: another key, another app, another currency, the wrong kind of product, a second subscription")
    func refusedRequests() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let otherKey = directory.appendingPathComponent("other.p8")
        try Data(P256.Signing.PrivateKey().pemRepresentation.utf8).write(to: otherKey)
        let cases: [(String, String, String)] = [
            (Self.oneTime, try await signedRequest("one-time-charge", keyFile: otherKey), "4000174"),
            (Self.oneTime, try await signedRequest("one-time-charge", bundleID: "com.example.other"), "4000174"),
            (Self.oneTime, try await signedRequest("one-time-charge", currency: "EUR"), "4000053"),
            (Self.generic, try await signedRequest("one-time-charge"), "4030023"),
            (Self.oneTime, "not a JWS", "4000174"),
        ]
        for (product, request, code) in cases {
            do {
                _ = try await purchase(product, request: request)
                Issue.record("\(product) bought with a request that should fail with \(code)")
            } catch let error as StoreError {
                #expect(error == .invalidAdvancedCommerceRequest)
                #expect(error.message.contains(code), "\(error.message)")
            }
        }
        _ = try await purchase(Self.generic, request: try await signedRequest("subscription"))
        await #expect(throws: StoreError.invalidAdvancedCommerceRequest) {
            _ = try await purchase(Self.generic, request: try await signedRequest("subscription"))
        }
        #expect(try await engine.transactions(TransactionQuery(bundleID: Self.bundleID)).count == 1, "nothing refused was recorded")
    }

    @Test("A reactivation Apple's model signed turns a cancelled subscription's renewal back on with the items it names, charging nothing; one that renews, lapsed, or names another item is refused with Apple's code")
    func reactivationRenewsAgain() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let record = try await purchase(Self.generic, request: try await signedRequest("subscription"))
        let tenDays = Self.start.addingTimeInterval(10 * 86_400)
        try await clock.advance(to: tenDays)
        func reactivation(_ skus: [String] = [], of id: UInt64 = record.id) async throws -> String {
            try await signedRequest("reactivate", at: tenDays, ["--transaction-id", String(id)] + skus.flatMap { ["--sku", $0] })
        }
        func refusal(_ request: String) async -> String {
            do {
                _ = try await purchase(Self.generic, request: request)
                return "bought"
            } catch {
                return (error as? StoreError)?.message ?? "\(error)"
            }
        }
        #expect(await refusal(try await reactivation()).contains("4030015"), "it still renews")

        _ = try await engine.setAutoRenew(subscription: record.id, enabled: false)
        #expect(await refusal(try await reactivation(["games.arcade"])).contains("4000122"), "an item the subscription does not have")
        #expect(await refusal(try await reactivation(of: 999_999)).contains("4000006"))
        let reactivated = try await purchase(Self.generic, request: try await reactivation(["news.daily"]))
        #expect(reactivated.id == record.id, "the current period's transaction; nothing new is charged")
        #expect(try await engine.transactions(TransactionQuery(originalID: record.id)).count == 1)

        let renewal = try await verified("renewal-info", try await engine.signedRenewalInfo(subscription: record.id))
        #expect((renewal["autoRenewStatus"] as? NSNumber)?.intValue == 1)
        let renewalItems = try #require((renewal["advancedCommerceInfo"] as? [String: Any])?["items"] as? [[String: Any]])
        #expect(renewalItems.map { $0["SKU"] as? String } == ["news.daily"], "sports.live is not reactivated")
        #expect(try await notificationTypes().suffix(2) == ["DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED"])

        try await clock.advance(to: record.expiresDate!.addingTimeInterval(60))
        let periods = try await engine.transactions(TransactionQuery(originalID: record.id))
        #expect(periods.map(\.amountCharged) == [Decimal(string: "8.98")!, Decimal(string: "4.99")!], "the renewal charges news alone")

        _ = try await engine.setAutoRenew(subscription: record.id, enabled: false)
        try await clock.advance(to: periods[1].expiresDate!.addingTimeInterval(60))
        let lapsedAt = periods[1].expiresDate!.addingTimeInterval(60)
        let late = try await signedRequest("reactivate", at: lapsedAt, ["--transaction-id", String(record.id)])
        #expect(await refusal(late).contains("4030015"), "a lapsed subscription is sold anew, not reactivated")
    }

    @Test("A modification Apple's model signed changes the subscription: items added and upgraded now charge their prorated prices in a new transaction for the rest of the period, removals wait for the renewal, a new billing cycle starts a full period now; Apple's verifier reads each")
    func modificationChangesTheSubscription() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let record = try await purchase(Self.generic, request: try await signedRequest("subscription"))
        let tenDays = Self.start.addingTimeInterval(10 * 86_400)
        try await clock.advance(to: tenDays)
        func modification(_ spec: String, at date: Date) async throws -> String {
            try await signedRequest("modify", at: date, ["--transaction-id", String(record.id), "--spec", spec])
        }

        // Now: movies added at a prorated 2.00, news upgraded (the store prorates the difference); sports leaves at the renewal.
        let upgrade = try await purchase(Self.generic, request: try await modification("""
            {"retainBillingCycle": true,
             "addItems": [{"SKU": "movies.hd", "description": "HD movies", "displayName": "Movies", "price": 2990, "proratedPrice": 2000}],
             "changeItems": [{"currentSKU": "news.daily", "SKU": "news.premium", "description": "Premium news", "displayName": "News+",
                              "price": 6990, "reason": "UPGRADE", "effective": "IMMEDIATELY"}],
             "removeItems": ["sports.live"]}
            """, at: tenDays))
        let unused = Int64((record.expiresDate!.timeIntervalSince(tenDays) / record.expiresDate!.timeIntervalSince(Self.start) * 100_000).rounded())
        #expect(upgrade.id != record.id && upgrade.originalID == record.id)
        #expect(upgrade.expiresDate == record.expiresDate, "the billing cycle is kept")
        #expect(upgrade.amountCharged == Decimal(2_000 + 2_000 * unused / 100_000) / 1000)
        #expect(try await engine.transactions(TransactionQuery(originalID: record.id)).first?.isUpgraded == true)
        let charged = try await verified("transaction", try engine.signedTransaction(upgrade))
        let chargedItems = try #require((charged["advancedCommerceInfo"] as? [String: Any])?["items"] as? [[String: Any]])
        #expect(Set(chargedItems.compactMap { $0["SKU"] as? String }) == ["news.premium", "sports.live", "movies.hd"], "sports runs to the period's end")
        let renewal = try await verified("renewal-info", try await engine.signedRenewalInfo(subscription: record.id))
        #expect((renewal["advancedCommerceInfo"] as? [String: Any])?["items"].flatMap { $0 as? [[String: Any]] }?.map { $0["SKU"] as? String } == ["news.premium", "movies.hd"])
        #expect((renewal["renewalPrice"] as? NSNumber)?.int64Value == 9_980)
        #expect(try await notificationTypes().last == "DID_CHANGE_RENEWAL_PREF/UPGRADE")

        // A second change in the same period prorates over the period, not over the transaction the first one made.
        let twentyDays = Self.start.addingTimeInterval(20 * 86_400)
        try await clock.advance(to: twentyDays)
        let second = try await purchase(Self.generic, request: try await modification("""
            {"retainBillingCycle": true,
             "addItems": [{"SKU": "music.hifi", "description": "Lossless music", "displayName": "Music", "price": 3000}]}
            """, at: twentyDays))
        let left = record.expiresDate!.timeIntervalSince(twentyDays) / record.expiresDate!.timeIntervalSince(Self.start)
        #expect(second.amountCharged == Decimal(3_000 * Int64((left * 100_000).rounded()) / 100_000) / 1000)
        let withMusic = try await verified("renewal-info", try await engine.signedRenewalInfo(subscription: record.id))
        #expect((withMusic["renewalPrice"] as? NSNumber)?.int64Value == 12_980)

        // From the next renewal only: a new name and a downgrade; nothing is charged now.
        let later = twentyDays.addingTimeInterval(86_400)
        try await clock.advance(to: later)
        let renamed = try await purchase(Self.generic, request: try await modification("""
            {"retainBillingCycle": true, "descriptors": {"displayName": "Bundle Lite", "effective": "NEXT_BILL_CYCLE"},
             "changeItems": [{"currentSKU": "movies.hd", "SKU": "movies.sd", "description": "SD movies", "displayName": "Movies",
                              "price": 990, "reason": "DOWNGRADE", "effective": "NEXT_BILL_CYCLE"}]}
            """, at: later))
        #expect(renamed.id == second.id, "the current transaction, unchanged")
        #expect(try await notificationTypes().last == "DID_CHANGE_RENEWAL_PREF/DOWNGRADE")
        try await clock.advance(to: record.expiresDate!.addingTimeInterval(60))
        let renewed = try #require(try await engine.transactions(TransactionQuery(originalID: record.id)).last)
        #expect(renewed.amountCharged == Decimal(string: "10.98")!, "news+ 6.99, SD movies 0.99 and music 3.00")
        #expect(renewed.advancedCommerceInfo?.descriptors?.displayName == "Bundle Lite")

        // A new billing cycle of a year, now, at the full price.
        let yearly = renewed.purchaseDate.addingTimeInterval(3_600)
        try await clock.advance(to: yearly)
        let reset = try await purchase(Self.generic, request: try await modification("""
            {"retainBillingCycle": false, "periodChange": {"period": "P1Y", "effective": "IMMEDIATELY"}}
            """, at: yearly))
        #expect(reset.purchaseDate == yearly)
        #expect(reset.expiresDate == Calendar(identifier: .gregorian).date(byAdding: .year, value: 1, to: yearly))
        #expect(reset.amountCharged == Decimal(string: "10.98")!)
        #expect(reset.advancedCommerceInfo?.period == "P1Y")
        _ = try await verified("transaction", try engine.signedTransaction(reset))

        // Refusals, with Apple's codes, change nothing.
        let count = try await engine.transactions(TransactionQuery(originalID: record.id)).count
        for (spec, code) in [
            (#"{"retainBillingCycle": true, "removeItems": ["games.arcade"]}"#, "4000122"),
            (#"{"retainBillingCycle": true, "addItems": [{"SKU": "news.premium", "description": "Again", "displayName": "News", "price": 100}]}"#, "4000143"),
        ] {
            do {
                _ = try await purchase(Self.generic, request: try await modification(spec, at: yearly))
                Issue.record("\(spec) was accepted")
            } catch let error as StoreError {
                #expect(error.message.contains(code), "\(error.message)")
            }
        }
        #expect(try await engine.transactions(TransactionQuery(originalID: record.id)).count == count)
    }

    // MARK: Server endpoints

    @Test("Change price, change metadata, cancel and revoke act on the subscription, answer signed info Apple's verifier reads, and send PRICE_CHANGE, METADATA_UPDATE, DID_CHANGE_RENEWAL_STATUS and REFUND")
    func subscriptionEndpoints() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let record = try await purchase(Self.generic, request: try await signedRequest("subscription"))
        let (changePrice, changeMetadata, cancel, revoke) = (try await body("change-price"), try await body("change-metadata"), try await body("cancel"), try await body("revoke"))
        try await withServer { client in
            let (priceStatus, priced) = try await post(client, "subscription/changePrice/\(record.id)", changePrice)
            #expect(priceStatus == .ok, "\(priced)")
            let pricedRenewal = try await verified("renewal-info", try #require(priced["signedRenewalInfo"] as? String))
            let increase = try #require(((pricedRenewal["advancedCommerceInfo"] as? [String: Any])?["items"] as? [[String: Any]])?.first?["priceIncreaseInfo"] as? [String: Any])
            #expect((increase["price"] as? NSNumber)?.int64Value == 5_990)
            #expect(increase["status"] as? String == "SCHEDULED")

            let (metadataStatus, changed) = try await post(client, "subscription/changeMetadata/\(record.id)", changeMetadata)
            #expect(metadataStatus == .ok, "\(changed)")
            let now = try await verified("transaction", try #require(changed["signedTransactionInfo"] as? String))
            let current = try #require(now["advancedCommerceInfo"] as? [String: Any])
            #expect((current["descriptors"] as? [String: Any])?["displayName"] as? String == "Bundle Plus", "IMMEDIATELY")
            #expect((current["items"] as? [[String: Any]])?.first?["SKU"] as? String == "news.daily", "NEXT_BILL_CYCLE waits")
            let next = try await verified("renewal-info", try #require(changed["signedRenewalInfo"] as? String))
            #expect(((next["advancedCommerceInfo"] as? [String: Any])?["items"] as? [[String: Any]])?.first?["SKU"] as? String == "news.daily.v2")

            let (cancelStatus, cancelled) = try await post(client, "subscription/cancel/\(record.id)", cancel)
            #expect(cancelStatus == .ok)
            #expect((try await verified("renewal-info", try #require(cancelled["signedRenewalInfo"] as? String))["autoRenewStatus"] as? NSNumber)?.intValue == 0)

            try await clock.advance(by: 10 * 86_400)
            let (revokeStatus, revoked) = try await post(client, "subscription/revoke/\(record.id)", revoke)
            #expect(revokeStatus == .ok, "\(revoked)")
            let ended = try await verified("transaction", try #require(revoked["signedTransactionInfo"] as? String))
            #expect(ended["revocationDate"] is NSNumber)
            #expect(ended["revocationType"] is NSNull, "Advanced Commerce transactions tell refunds item by item")
            let refunds = try #require(((ended["advancedCommerceInfo"] as? [String: Any])?["items"] as? [[String: Any]])?.first?["refunds"] as? [[String: Any]])
            #expect(refunds.first?["refundType"] as? String == "PRORATED")
            #expect(refunds.first?["refundReason"] as? String == "UNSATISFIED_WITH_PURCHASE")
            #expect(((refunds.first?["refundAmount"] as? NSNumber)?.int64Value ?? 0) < 4_990)

            // Apple's errors.
            #expect(try await post(client, "subscription/revoke/\(record.id)", revoke).1["errorCode"] as? Int == 4_000_186)
            #expect(try await post(client, "subscription/cancel/999999", cancel).1["errorCode"] as? Int == 4_040_010)
            #expect(try await post(client, "subscription/cancel/abc", cancel).1["errorCode"] as? Int == 4_000_006)
            #expect(try await post(client, "subscription/cancel/\(record.id)", "{}").1["errorCode"] as? Int == 4_000_079)
            #expect(try await post(client, "subscription/cancel/\(record.id)", "not json").1["errorCode"] as? Int == 4_000_173)
        }
        #expect(try await notificationTypes() == [
            "SUBSCRIBED/INITIAL_BUY", "PRICE_CHANGE", "METADATA_UPDATE", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "REFUND",
        ])
        for notification in try await engine.notifications() where ["PRICE_CHANGE", "METADATA_UPDATE"].contains(notification.type.rawValue) {
            let payload = try await verified("notification", try await engine.signedNotification(notification))
            #expect(payload["notificationType"] as? String == notification.type.rawValue)
            let data = try #require(payload["data"] as? [String: Any])
            let renewal = try await verified("renewal-info", try #require(data["signedRenewalInfo"] as? String))
            #expect(renewal["advancedCommerceInfo"] is [String: Any])
        }
    }

    @Test("Request Transaction Refund refunds and revokes a one-time charge's item (REFUND); migrate turns an In-App Purchase subscription into an Advanced Commerce one (MIGRATION)")
    func refundAndMigrate() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let charge = try await purchase(Self.oneTime, request: try await signedRequest("one-time-charge"))
        let subscription = try await purchase(Self.monthly, request: nil)
        let (refund, migrate) = (try await body("request-refund"), try await body("migrate"))
        try await withServer { client in
            let (refundStatus, refunded) = try await post(client, "transaction/requestRefund/\(charge.id)", refund)
            #expect(refundStatus == .ok, "\(refunded)")
            #expect(refunded["signedRenewalInfo"] == nil)
            let transaction = try await verified("transaction", try #require(refunded["signedTransactionInfo"] as? String))
            #expect(transaction["revocationDate"] is NSNumber)
            let item = try #require(((transaction["advancedCommerceInfo"] as? [String: Any])?["items"] as? [[String: Any]])?.first)
            #expect((item["refunds"] as? [[String: Any]])?.first?["refundAmount"] as? Int == 12_990)
            #expect(item["revocationDate"] is NSNumber)
            #expect(try await post(client, "transaction/requestRefund/\(charge.id)", refund).1["errorCode"] as? Int == 4_030_021)
            #expect(try await post(client, "subscription/cancel/\(subscription.id)", try await body("cancel")).1["errorCode"] as? Int == 4_030_008,
                    "an In-App Purchase subscription is no Advanced Commerce one until migrated")

            let (migrateStatus, migratedAnswer) = try await post(client, "subscription/migrate/\(subscription.id)", migrate)
            #expect(migrateStatus == .ok, "\(migratedAnswer)")
            let renewal = try await verified("renewal-info", try #require(migratedAnswer["signedRenewalInfo"] as? String))
            #expect(renewal["autoRenewProductId"] as? String == Self.migrated)
            #expect((renewal["renewalPrice"] as? NSNumber)?.int64Value == 9_990)
            let items = try #require((renewal["advancedCommerceInfo"] as? [String: Any])?["items"] as? [[String: Any]])
            #expect(items.map { $0["SKU"] as? String } == ["all.access"])
            #expect(try await post(client, "subscription/migrate/\(subscription.id)", migrate).1["errorCode"] as? Int == 4_000_176)
        }
        #expect(try await notificationTypes() == ["ONE_TIME_CHARGE", "SUBSCRIBED/INITIAL_BUY", "REFUND", "MIGRATION"])
        let migration = try #require(try await engine.notifications().last)
        #expect(try await verified("notification", try await engine.signedNotification(migration))["notificationType"] as? String == "MIGRATION")
    }
}
