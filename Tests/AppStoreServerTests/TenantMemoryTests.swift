import AppStoreEngine
import AppStoreFormats
@testable import AppStoreServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StoreKitConfiguration
import Testing

/// What a server holds of its tenants: a deleted tenant leaves nothing behind, and the routes of tenants nobody used
/// lately go (issue 31).
@Suite("What a tenant holds")
struct TenantMemoryTests {
    static let start = Date(timeIntervalSince1970: 1_768_478_400)
    static let catalog = Catalog(products: [
        CatalogProduct(id: "premium", type: .nonConsumable, price: Decimal(string: "4.99")!),
        CatalogProduct(
            id: "monthly", type: .autoRenewable, price: Decimal(string: "2.99")!,
            subscription: SubscriptionTerms(groupID: "plans", level: 1, period: SubscriptionPeriod(value: 1, unit: .month))
        ),
    ])

    /// A server counting at `metrics`, whose tenants share one storage and keep the routes of `routesKept` of them.
    func makeServer(metrics: StoreMetrics, routesKept: Int = 1_024, idleTimeout: Duration? = .seconds(600)) -> (StoreServer, TenantDirectory) {
        let storage = InMemoryStorage()
        let main = StoreEngine(catalog: Self.catalog, storage: InMemoryStorage(), clock: VirtualClock(start: Self.start), signer: .ephemeral)
        var server = StoreServer(engine: main, port: 0)
        server.metrics = metrics
        let directory = TenantDirectory(storage: storage, routesKept: routesKept, idleTimeout: idleTimeout) { name, _ in
            TenantDirectory.Tenant(engine: StoreEngine(
                tenantID: name, catalog: Self.catalog, storage: storage, clock: VirtualClock(start: Self.start), signer: .ephemeral
            ))
        }
        server.tenants = directory
        return (server, directory)
    }

    func request(_ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil) async throws -> (HTTPResponse.Status, String) {
        try await client.execute(uri: uri, method: method, headers: [.contentType: "application/json"], body: body.map { ByteBuffer(string: $0) }) { response in
            (response.status, String(buffer: response.body))
        }
    }

    /// Scrapes `/metrics` until it has every line of `expected` — the stores' events are counted as they are read
    /// from their event streams — and returns the last exposition.
    func scrape(_ client: some TestClientProtocol, untilItHas expected: [String]) async throws -> String {
        var text = ""
        for _ in 0..<1_000 {
            text = try await request(client, .get, "/metrics").1
            let lines = Set(text.split(separator: "\n").map(String.init))
            if expected.allSatisfy(lines.contains) { break }
            await Task.yield()
        }
        return text
    }

    @Test("A deleted tenant is gone from /metrics, from the tenants the server holds open and from the routes it keeps; the others stay")
    func deletedTenantLeavesNothing() async throws {
        let metrics = StoreMetrics()
        let (server, directory) = makeServer(metrics: metrics)
        let service = StoreService(metrics: metrics)
        await directory.runWork(in: service)
        let work = Task { try await service.run() }
        defer { work.cancel() }
        await service.waitUntilRunning()
        try await server.makeApplication().test(.router) { client in
            for tenant in ["alice", "bob"] {
                #expect(try await request(client, .post, "/control/tenants", #"{"name": "\#(tenant)"}"#).0 == .created)
                #expect(try await request(client, .post, "/t/\(tenant)/control/purchases", #"{"productId": "premium"}"#).0 == .ok)
            }
            let counted = try await scrape(client, untilItHas: [
                #"openstorekit_purchases_total{tenant="alice",result="purchased"} 1"#,
                #"openstorekit_purchases_total{tenant="bob",result="purchased"} 1"#,
            ])
            #expect(counted.contains(#"openstorekit_notification_outbox_depth{tenant="alice"}"#))
            #expect(await directory.tenantsWithRoutes() == ["alice", "bob"])

            #expect(try await request(client, .delete, "/control/tenants/alice").0 == .noContent)
            let after = try await request(client, .get, "/metrics").1
            #expect(!after.contains(#"tenant="alice""#), "a deleted tenant's metrics are still listed:\n\(after)")
            #expect(after.contains(#"openstorekit_purchases_total{tenant="bob",result="purchased"} 1"#))
            #expect(after.contains(#"openstorekit_notification_outbox_depth{tenant="bob"}"#))
            #expect(await directory.openedTenants() == ["bob"])
            #expect(await directory.tenantsWithRoutes() == ["bob"])
        }
    }

    @Test("The directory keeps the routes of the tenants used last only; a tenant whose routes went answers as before, and its devices' change feed continues")
    func routesOfIdleTenantsGo() async throws {
        let (server, directory) = makeServer(metrics: StoreMetrics(), routesKept: 2)
        try await server.makeApplication().test(.router) { client in
            let (_, firstPoll) = try await request(client, .get, "/t/a/device/changes")
            for tenant in ["a", "b", "c"] {
                #expect(try await request(client, .post, "/t/\(tenant)/control/purchases", #"{"productId": "premium"}"#).0 == .ok)
            }
            #expect(await directory.tenantsWithRoutes() == ["b", "c"])
            #expect(await directory.openedTenants() == ["a", "b", "c"], "the stores stay open; only their routes went")

            let (status, bought) = try await request(client, .post, "/t/a/control/purchases", #"{"productId": "premium"}"#)
            #expect(status == .ok, "\(bought)")
            #expect(await directory.tenantsWithRoutes() == ["a", "c"])
            #expect(try await directory.tenant("a").engine.transactions().count == 2)
            // The feed outlived the routes: a device sees the same run, not one that started over.
            let (_, nextPoll) = try await request(client, .get, "/t/a/device/changes")
            let epoch = { (body: String) in (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["epoch"] as? String }
            #expect(epoch(firstPoll) != nil)
            #expect(epoch(nextPoll) == epoch(firstPoll))
        }
    }

    @Test("A tenant nobody asked for in the idle time, with nothing scheduled, is closed and opens again as it was on its next request; one with a renewal to come stays open")
    func idleTenantsClose() async throws {
        let (server, directory) = makeServer(metrics: StoreMetrics())
        try await server.makeApplication().test(.router) { client in
            let (_, first) = try await request(client, .post, "/t/quiet/control/purchases", #"{"productId": "premium", "account": "ana"}"#)
            #expect(try await request(client, .post, "/t/renewing/control/purchases", #"{"productId": "monthly"}"#).0 == .ok)
            #expect(await directory.closeIdleTenants(idleFor: .seconds(3_600)).isEmpty, "both were used within the hour")

            #expect(await directory.closeIdleTenants(idleFor: .zero) == ["quiet"])
            #expect(await directory.openedTenants() == ["renewing"], "its subscription renews in a month: it stays open to renew then")
            #expect(await directory.tenantsWithRoutes() == ["renewing"])

            // Its next request opens it again from the storage: the purchase is there, the identifiers go on.
            let (status, again) = try await request(client, .post, "/t/quiet/control/purchases", #"{"productId": "premium", "account": "ana"}"#)
            #expect(status == .ok, "\(again)")
            #expect(await directory.openedTenants() == ["quiet", "renewing"])
            let transactions = try await directory.tenant("quiet").engine.transactions()
            #expect(transactions.count == 2)
            let firstID = try #require(identifier(in: first)), secondID = try #require(identifier(in: again))
            #expect(secondID > firstID, "the reopened store continues the identifiers: \(firstID) then \(secondID)")
        }
    }

    @Test("Without an idle time the directory closes no tenant")
    func noIdleTimeoutKeepsTenants() async throws {
        let (server, directory) = makeServer(metrics: StoreMetrics(), idleTimeout: nil)
        try await server.makeApplication().test(.router) { client in
            let (status, _) = try await request(client, .post, "/t/quiet/control/purchases", #"{"productId": "premium"}"#)
            #expect(status == .ok)
            #expect(await directory.closeIdleTenants().isEmpty)
            #expect(await directory.openedTenants() == ["quiet"])
        }
    }

    /// The transaction identifier in a purchase's JSON answer.
    func identifier(in body: String) -> UInt64? {
        let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        return (object?["transactionId"] as? String).flatMap(UInt64.init)
    }
}
