import AppStoreEngine
import AppStoreFormats
@testable import AppStoreServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StoreKitConfiguration
import Testing

/// `GET /metrics`: what the server and its store did, in Prometheus' text format, from a registry of the test's own.
@Suite("Metrics")
struct MetricsTests {
    static let start = Date(timeIntervalSince1970: 1_768_478_400)
    static let bundleID = "com.example.demo"

    func makeEngine() -> StoreEngine {
        let catalog = Catalog(products: [
            CatalogProduct(id: "premium", type: .nonConsumable, price: Decimal(string: "4.99")!),
            CatalogProduct(id: "monthly", type: .autoRenewable, price: Decimal(string: "2.99")!,
                           subscription: SubscriptionTerms(groupID: "G1", level: 1, period: SubscriptionPeriod(value: 1, unit: .month))),
        ])
        return StoreEngine(catalog: catalog, storage: InMemoryStorage(), clock: VirtualClock(start: Self.start), signer: .ephemeral)
    }

    func post(_ client: some TestClientProtocol, _ uri: String, _ body: String? = nil) async throws -> [String: Any] {
        try await client.execute(
            uri: uri, method: .post, headers: [.contentType: "application/json"], body: body.map { ByteBuffer(string: $0) }
        ) { response in
            #expect(response.status == .ok, "\(uri): \(String(buffer: response.body))")
            return try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
        }
    }

    /// Scrapes `/metrics` until every line in `expected` is in it — the store's events are counted as they are read
    /// from its event stream — and returns the last exposition.
    func scrape(_ client: some TestClientProtocol, untilItHas expected: [String]) async throws -> String {
        var text = ""
        for _ in 0..<1_000 {
            text = try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
                return String(buffer: response.body)
            }
            let lines = Set(text.split(separator: "\n").map(String.init))
            if expected.allSatisfy(lines.contains) { break }
            await Task.yield()
        }
        return text
    }

    @Test("After a purchase, a refund, a renewal on the virtual clock and notification attempts to a closed port, /metrics counts each", arguments: RouteTransport.allCases)
    func countsWhatTheStoreDid(transport: RouteTransport) async throws {
        let engine = makeEngine()
        let metrics = StoreMetrics()
        await metrics.follow(engine)
        defer { metrics.stopFollowing() }
        var server = StoreServer(engine: engine, port: 0)
        server.metrics = metrics
        let tenant = engine.tenantID
        try await transport.test(server) { client in
            let premium = try await post(client, "/control/purchases", #"{"productId": "premium", "bundleId": "com.example.demo"}"#)
            let premiumID = try #require(premium["transactionId"] as? String)
            _ = try await post(client, "/control/transactions/\(premiumID)/refund")
            _ = try await post(client, "/control/purchases", #"{"productId": "monthly", "bundleId": "com.example.demo"}"#)
            _ = try await post(client, "/control/clock/advance", #"{"by": "1mo"}"#)
            #expect(try await engine.pendingNotificationCount(limit: 100) >= 2)

            // Nothing listens on port 1 of loopback: the test notification and the first due one find no server.
            let sender = NotificationSender(
                engine: engine, destinations: NotificationDestinations(defaultURL: URL(string: "http://127.0.0.1:1/notifications")!),
                timeout: 5, metrics: metrics
            )
            let test = await sender.sendTestNotification(bundleID: Self.bundleID)
            #expect(test?.attempts.map(\.result) == ["NO_RESPONSE"])
            await sender.deliverDue()
            // The first notification of each original transaction was attempted; the later ones wait behind it.
            let outbox = try await engine.notifications()
            let attempts = 1 + outbox.reduce(0) { $0 + $1.delivery.attempts.count }
            #expect(attempts >= 2)
            let pending = outbox.filter { $0.delivery.state == .pending }.count

            let expected = [
                #"openstorekit_purchases_total{tenant="\#(tenant)",result="purchased"} 2"#,
                #"openstorekit_renewals_total{tenant="\#(tenant)"} 1"#,
                #"openstorekit_refunds_total{tenant="\#(tenant)"} 1"#,
                #"openstorekit_notification_attempts_total{tenant="\#(tenant)",result="NO_RESPONSE"} \#(attempts)"#,
                #"openstorekit_notification_failures_total{tenant="\#(tenant)",result="NO_RESPONSE"} \#(attempts)"#,
                #"openstorekit_notification_outbox_depth{tenant="\#(tenant)"} \#(pending).0"#,
                #"openstorekit_http_requests_total{group="control",method="POST",status="200"} 4"#,
                #"openstorekit_http_request_duration_seconds_count{group="control",method="POST"} 4"#,
            ]
            let text = try await scrape(client, untilItHas: expected)
            let lines = Set(text.split(separator: "\n").map(String.init))
            for line in expected {
                #expect(lines.contains(line), "\(line) is not in:\n\(text)")
            }
            #expect(text.contains("# TYPE openstorekit_http_request_duration_seconds histogram"))
        }
    }

    @Test("Request paths are counted by route group, never by the identifiers in them", arguments: RouteTransport.allCases)
    func routeGroups(transport: RouteTransport) async throws {
        let metrics = StoreMetrics()
        var server = StoreServer(engine: makeEngine(), port: 0)
        server.metrics = metrics
        try await transport.test(server) { client in
            try await client.execute(uri: "/health", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/inApps/v1/transactions/2000000000000001", method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/no/such/path", method: .get) { #expect($0.status == .notFound) }
        }
        let text = metrics.exposition()
        #expect(text.contains(#"openstorekit_http_requests_total{group="health",method="GET",status="200"} 1"#))
        #expect(text.contains(#"openstorekit_http_requests_total{group="server_api",method="GET",status="401"} 1"#))
        #expect(text.contains(#"openstorekit_http_requests_total{group="other",method="GET",status="404"} 1"#))
        #expect(!text.contains("2000000000000001"))
    }

    @Test(
        "A tenant's path counts as the route it reaches, and App Store Server API paths split retention messaging off",
        arguments: [
            ("/", "transaction_manager"), ("/t/checkout-42/control/purchases", "control"), ("/t/checkout-42", "transaction_manager"),
            ("/inApps/v1/messaging/message/upload/1", "retention_messaging"), ("/inApps/v2/history/1", "server_api"),
            ("/sandbox/verifyReceipt", "verify_receipt"), ("/t/a/device/changes", "device"), ("/v1/products", "products"),
        ]
    )
    func routeGroupOfPath(path: String, group: String) {
        #expect(MetricsMiddleware.group(ofPath: path) == group)
    }

    @Test("A server without metrics has no /metrics", arguments: RouteTransport.allCases)
    func noMetricsWithoutRegistry(transport: RouteTransport) async throws {
        let server = StoreServer(engine: makeEngine(), port: 0)
        try await transport.test(server) { client in
            try await client.execute(uri: "/metrics", method: .get) { #expect($0.status == .notFound) }
        }
    }
}
