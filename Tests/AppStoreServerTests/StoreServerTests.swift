import AppStoreEngine
import AppStoreFormats
import StoreKitConfiguration
import AppStoreServer
import Foundation
import HummingbirdTesting
import NIOCore
import Testing
import HTTPTypes

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

    @Test("GET /health reports status, version and the store clock's now", arguments: [TestingSetup.router, .live])
    func health(setup: TestingSetup) async throws {
        let (server, clock) = try makeServer()
        try await clock.advance(by: 60)
        try await server.makeApplication().test(setup) { client in
            try await client.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .ok)
                let body = try JSONDecoder().decode(HealthResponse.self, from: Data(response.body.readableBytesView))
                #expect(body.status == "ok")
                #expect(body.version == StoreDefaults.version)
                #expect(body.now == "2026-01-15T12:01:00Z")
            }
        }
    }

    @Test("GET /v1/products lists the catalog with exact prices in the storefront's currency")
    func products() async throws {
        let (server, _) = try makeServer()
        try await server.makeApplication().test(.router) { client in
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
}
