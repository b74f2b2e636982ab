import AppStoreEngine
import AppStoreFormats
import StoreKitConfiguration
import AppStoreServer
import Foundation
import HummingbirdTesting
import NIOCore
import Testing
import HTTPTypes
import Logging
import Synchronization

@Suite("Store server routes")
struct StoreServerTests {
    let start = Date(timeIntervalSince1970: 1_768_478_400)

    func makeServer() throws -> (StoreServer, VirtualClock) {
        let clock = VirtualClock(start: start)
        let catalog = Catalog(products: [
            CatalogProduct(
                id: "premium", type: .nonConsumable, referenceName: "Premium", price: Decimal(string: "4.99")!,
                isFamilyShareable: true, localizations: [LocalizedText(locale: "en_US", displayName: "Premium", description: "Everything")]
            ),
            CatalogProduct(
                id: "monthly", type: .autoRenewable, price: Decimal(string: "2.99")!,
                subscription: SubscriptionTerms(groupID: "G1", level: 1, period: SubscriptionPeriod(value: 1, unit: .month))
            ),
        ])
        let engine = StoreEngine(catalog: catalog, settings: StoreSettings(storefront: "GBR"), storage: InMemoryStorage(), clock: clock, signer: .ephemeral)
        return (StoreServer(engine: engine, port: 0), clock)
    }

    @Test("GET /health reports status, version and the store clock's now", arguments: RouteTransport.allCases)
    func health(transport: RouteTransport) async throws {
        let (server, clock) = try makeServer()
        try await clock.advance(by: 60)
        try await transport.test(server) { client in
            try await client.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .ok)
                let body = try JSONDecoder().decode(HealthResponse.self, from: Data(response.body.readableBytesView))
                #expect(body.status == "ok")
                #expect(body.version == StoreDefaults.version)
                #expect(body.now == "2026-01-15T12:01:00Z")
            }
        }
    }

    @Test("GET /v1/products lists the catalog with exact prices in the storefront's currency", arguments: RouteTransport.allCases)
    func products(transport: RouteTransport) async throws {
        let (server, _) = try makeServer()
        try await transport.test(server) { client in
            try await client.execute(uri: "/v1/products", method: .get) { response in
                #expect(response.status == .ok)
                let body = try JSONDecoder().decode(ProductsResponse.self, from: Data(response.body.readableBytesView))
                #expect(body.products.map(\.id) == ["premium", "monthly"])
                #expect(body.products[0].price == "4.99")
                #expect(body.products[0].currency == "GBP")
                #expect(body.products[0].type == "Non-Consumable")
                #expect(body.products[0].familyShareable)
                #expect(body.products[0].localizations.first?.displayName == "Premium")
                #expect(body.products[1].subscription?.period == "P1M")
            }
        }
    }

    @Test("Unknown paths answer 404")
    func notFound() async throws {
        let (server, _) = try makeServer()
        try await server.makeApplication().test(.router) { client in
            try await client.execute(uri: "/v1/nothing", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test("Each answer carries its request ID as X-Request-ID, and one log line names it with method, path, status and duration")
    func requestLog() async throws {
        let (base, _) = try makeServer()
        let records = RecordedLogs()
        let server = StoreServer(engine: base.engine, port: 0, logger: Logger(label: "test") { _ in RecordingLogHandler(records: records) })
        try await server.makeApplication().test(.router) { client in
            let id = try await client.execute(uri: "/control/transactions/1/refund", method: .post) { response in
                #expect(response.status == .notFound)
                return response.headers[HTTPField.Name("X-Request-ID")!]
            }
            let requestID = try #require(id)
            let line = try #require(records.all.first { $0.message == "Request" })
            #expect(line.metadata["hb.request.id"]?.description == requestID)
            #expect(line.metadata["http.method"]?.description == "POST")
            #expect(line.metadata["http.path"]?.description == "/control/transactions/1/refund")
            #expect(line.metadata["http.status"]?.description == "404")
            #expect(line.metadata["duration.ms"] != nil)
        }
    }
}

/// Log records a test reads back.
final class RecordedLogs: Sendable {
    struct Record: Sendable {
        var message: String
        var metadata: Logger.Metadata
    }

    private let records = Mutex<[Record]>([])
    var all: [Record] { records.withLock { $0 } }
    func append(_ record: Record) { records.withLock { $0.append(record) } }
}

/// A log handler that keeps every record, with the logger's metadata merged in.
struct RecordingLogHandler: LogHandler {
    let records: RecordedLogs
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        records.append(RecordedLogs.Record(message: event.message.description, metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
    }
}
