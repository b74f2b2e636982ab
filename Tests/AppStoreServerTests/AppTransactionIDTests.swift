import AppStoreEngine
import AppStoreFormats
import AppStoreServer
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StoreKitConfiguration
import Testing

/// The App Store Server API endpoints that take "any transactionId, originalTransactionId or appTransactionId" answer
/// for an `appTransactionId` as for any transaction of its customer; Get Transaction Info refuses one with 4000048.
@Suite("appTransactionId at the App Store Server API")
struct AppTransactionIDTests {
    static let bundleID = "com.example.demo"
    static let catalog = Catalog(products: [
        CatalogProduct(id: "coins", type: .consumable, price: Decimal(string: "0.99")!),
        CatalogProduct(
            id: "monthly", type: .autoRenewable, price: Decimal(string: "2.99")!,
            subscription: SubscriptionTerms(groupID: "G1", level: 1, period: SubscriptionPeriod(value: 1, unit: .month))
        ),
    ])
    let privateKey = P256.Signing.PrivateKey()

    /// A store where alice has a subscription and two coin packs (the second refunded), and bob one coin pack.
    struct Store {
        let engine: StoreEngine
        let server: StoreServer
        let subscription: TransactionRecord
        let coins: [TransactionRecord]
        let bobsCoins: TransactionRecord
        var alicesAppTransactionID: String { engine.appTransactionID(accountID: "alice", bundleID: AppTransactionIDTests.bundleID) }
    }

    func makeStore() async throws -> Store {
        let engine = StoreEngine(
            tenantID: "apptx", catalog: Self.catalog, storage: InMemoryStorage(),
            clock: VirtualClock(start: Date(timeIntervalSince1970: 1_768_478_400)), signer: .ephemeral
        )
        func buy(_ productID: String, _ account: String) async throws -> TransactionRecord {
            try await engine.purchase(PurchaseRequest(productID: productID, accountID: account, bundleID: Self.bundleID))
        }
        let subscription = try await buy("monthly", "alice")
        let coins = [try await buy("coins", "alice"), try await buy("coins", "alice")]
        let bobsCoins = try await buy("coins", "bob")
        _ = try await engine.refund(transactionID: coins[1].id)
        let key = ServerAPIKey(keyID: "ABCDEF1234", issuerID: ServerAPIAuthenticationTests.issuer, publicKey: privateKey.publicKey, created: Date())
        let server = StoreServer(engine: engine, port: 0, apiKeys: ServerAPIKeyRing(keys: [key]))
        return Store(engine: engine, server: server, subscription: subscription, coins: coins, bobsCoins: bobsCoins)
    }

    /// GETs `uri` with a token for the app and answers the status and the JSON body.
    func get(_ uri: String, from server: StoreServer) async throws -> (HTTPResponse.Status, [String: Any]) {
        let token = try ServerAPIAuthenticationTests.token(
            header: ["alg": "ES256", "kid": "ABCDEF1234", "typ": "JWT"], claims: ServerAPIAuthenticationTests.claims(), signer: privateKey
        )
        return try await server.makeApplication().test(.router) { client in
            try await client.execute(uri: uri, method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]) ?? [:])
            }
        }
    }

    /// The JSON payload of a compact JWS.
    func payload(_ token: Any?) throws -> [String: Any] {
        let text = try #require(token as? String)
        return try #require(try JSONSerialization.jsonObject(with: CompactJWS(text).payload) as? [String: Any])
    }

    func transactionIDs(_ body: [String: Any]) throws -> [String] {
        try (body["signedTransactions"] as? [String] ?? []).map { try payload($0)["transactionId"] as? String ?? "" }
    }

    @Test("Get Transaction History, v1 and v2, lists the customer's transactions in the app for an appTransactionId, as for their transaction's ID", arguments: [1, 2])
    func history(version: Int) async throws {
        let store = try await makeStore()
        let (status, body) = try await get("/inApps/v\(version)/history/\(store.alicesAppTransactionID)", from: store.server)
        #expect(status == .ok, "\(body)")
        let alices = [store.subscription, store.coins[0], store.coins[1]].map { String($0.id) }
        #expect(try transactionIDs(body) == alices)
        #expect(try await transactionIDs(get("/inApps/v\(version)/history/\(store.coins[0].id)", from: store.server).1) == alices)
        let bobs = store.engine.appTransactionID(accountID: "bob", bundleID: Self.bundleID)
        #expect(try await transactionIDs(get("/inApps/v\(version)/history/\(bobs)", from: store.server).1) == [String(store.bobsCoins.id)])
    }

    @Test("Get All Subscription Statuses answers the customer's subscriptions for an appTransactionId; the renewal info carries it")
    func subscriptionStatuses() async throws {
        let store = try await makeStore()
        let (status, body) = try await get("/inApps/v1/subscriptions/\(store.alicesAppTransactionID)", from: store.server)
        #expect(status == .ok, "\(body)")
        let group = try #require((body["data"] as? [[String: Any]])?.first)
        #expect(group["subscriptionGroupIdentifier"] as? String == "G1")
        let last = try #require((group["lastTransactions"] as? [[String: Any]])?.first)
        #expect(last["originalTransactionId"] as? String == String(store.subscription.id))
        #expect(try payload(last["signedRenewalInfo"])["appTransactionId"] as? String == store.alicesAppTransactionID)
        #expect(try payload(last["signedTransactionInfo"])["appTransactionId"] as? String == store.alicesAppTransactionID)
    }

    @Test("Get Refund History lists the customer's refunded transactions for an appTransactionId")
    func refundHistory() async throws {
        let store = try await makeStore()
        let (status, body) = try await get("/inApps/v2/refund/lookup/\(store.alicesAppTransactionID)", from: store.server)
        #expect(status == .ok, "\(body)")
        #expect(try transactionIDs(body) == [String(store.coins[1].id)])
    }

    @Test("Get App Transaction Info answers the app transaction an appTransactionId names, for a customer who never bought too")
    func appTransactionInfo() async throws {
        let store = try await makeStore()
        let (status, body) = try await get("/inApps/v1/transactions/appTransactions/\(store.alicesAppTransactionID)", from: store.server)
        #expect(status == .ok, "\(body)")
        let appTransaction = try payload(body["signedAppTransactionInfo"])
        #expect(appTransaction["appTransactionId"] as? String == store.alicesAppTransactionID)
        #expect(appTransaction["bundleId"] as? String == Self.bundleID)

        try await store.engine.saveAccount(Account(id: "carol", storefront: "USA"))
        let carols = store.engine.appTransactionID(accountID: "carol", bundleID: Self.bundleID)
        let (carolStatus, carolBody) = try await get("/inApps/v1/transactions/appTransactions/\(carols)", from: store.server)
        #expect(carolStatus == .ok, "\(carolBody)")
        #expect(try payload(carolBody["signedAppTransactionInfo"])["appTransactionId"] as? String == carols)
    }

    @Test("Get Transaction Info refuses an appTransactionId with Apple's 4000048; an identifier nobody has is still 4040010")
    func transactionInfoRefusesAppTransactionID() async throws {
        let store = try await makeStore()
        let (status, body) = try await get("/inApps/v1/transactions/\(store.alicesAppTransactionID)", from: store.server)
        #expect(status == .badRequest)
        #expect(body["errorCode"] as? Int == 4_000_048, "\(body)")
        #expect(body["errorMessage"] as? String == "Invalid request. App transactions aren't supported by this endpoint.")

        let otherApp = store.engine.appTransactionID(accountID: "alice", bundleID: "com.example.other")
        for unknown in ["7000000000000000000", otherApp] {
            for path in ["/inApps/v1/transactions/", "/inApps/v2/history/", "/inApps/v1/subscriptions/", "/inApps/v2/refund/lookup/", "/inApps/v1/transactions/appTransactions/"] {
                let (status, body) = try await get(path + unknown, from: store.server)
                #expect(status == .notFound, "\(path)\(unknown)")
                #expect(body["errorCode"] as? Int == 4_040_010, "\(path)\(unknown): \(body)")
            }
        }
    }
}
