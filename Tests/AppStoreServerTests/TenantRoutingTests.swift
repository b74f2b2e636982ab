import AppStoreEngine
import AppStoreFormats
import AppStoreServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StoreKitConfiguration
import TestProcesses
import Testing

/// `/t/{tenant}/…`: one server, many isolated stores, each with every route.
@Suite("Tenants over HTTP")
struct TenantRoutingTests {
    static let catalog = Catalog(products: [CatalogProduct(id: "premium", type: .nonConsumable, price: Decimal(string: "4.99")!)])

    /// A server whose tenants are in `storage`: a server made again on the same storage is the first one restarted, or
    /// a second server sharing its database.
    func makeServer(storage: InMemoryStorage = InMemoryStorage()) -> StoreServer {
        let start = Date(timeIntervalSince1970: 1_768_478_400)
        let main = StoreEngine(catalog: Self.catalog, storage: InMemoryStorage(), clock: VirtualClock(start: start), signer: .ephemeral)
        var server = StoreServer(engine: main, port: 0)
        server.tenants = TenantDirectory(storage: storage) { name, configuration in
            TenantDirectory.Tenant(engine: StoreEngine(
                tenantID: name, catalog: configuration.map(Catalog.init(configuration:)) ?? Self.catalog, storage: storage,
                clock: VirtualClock(start: start), signer: .ephemeral
            ))
        }
        return server
    }

    func call(_ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil) async throws -> (HTTPResponse.Status, Any?) {
        try await client.execute(uri: uri, method: method, headers: [.contentType: "application/json"], body: body.map { ByteBuffer(string: $0) }) { response in
            (response.status, try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)))
        }
    }

    @Test("The tenant routes answer a store that cannot open with the status every surface gives its error: 503 unreachable, 500 a storage failure; a taken name 409, a bad one 400")
    func tenantErrorStatuses() async throws {
        let main = StoreEngine(catalog: Self.catalog, storage: InMemoryStorage(), clock: VirtualClock(start: Date()), signer: .ephemeral)
        var server = StoreServer(engine: main, port: 0)
        server.tenants = TenantDirectory { name, _ throws(StoreError) in
            switch name {
            case "away": throw StoreError.storeUnreachable
            case "broken": throw StoreError.storageFailure("The disk is full.")
            default: return TenantDirectory.Tenant(engine: StoreEngine(tenantID: name, catalog: Self.catalog, storage: InMemoryStorage(), clock: VirtualClock(start: Date()), signer: .ephemeral))
            }
        }
        try await server.makeApplication().test(.router) { client in
            let (away, awayBody) = try await call(client, .post, "/control/tenants", #"{"name": "away"}"#)
            #expect(away == .serviceUnavailable)
            #expect((awayBody as? [String: Any])?["error"] as? String == StoreError.storeUnreachable.message)
            let (broken, brokenBody) = try await call(client, .post, "/control/tenants", #"{"name": "broken"}"#)
            #expect(broken == .internalServerError)
            #expect((brokenBody as? [String: Any])?["error"] as? String == "The disk is full.")
            #expect(try await call(client, .post, "/control/tenants/away/reset").0 == .serviceUnavailable)
            #expect(try await call(client, .get, "/control/tenants/broken/export").0 == .internalServerError)
            #expect(try await call(client, .post, "/control/tenants", #"{"name": "fine"}"#).0 == .created)
            #expect(try await call(client, .post, "/control/tenants", #"{"name": "fine"}"#).0 == .conflict)
            #expect(try await call(client, .post, "/control/tenants", #"{"name": "-bad"}"#).0 == .badRequest)
        }
    }

    @Test("Each tenant is its own store: purchases under /t/alice/ are not /t/bob/'s nor the bare paths'")
    func isolation() async throws {
        let server = makeServer()
        try await server.makeApplication().test(.router) { client in
            #expect(try await call(client, .post, "/t/alice/control/purchases", #"{"productId": "premium"}"#).0 == .ok)
            #expect(try await call(client, .post, "/t/alice/control/purchases", #"{"productId": "premium"}"#).0 == .ok)
            #expect(try await call(client, .post, "/t/bob/control/purchases", #"{"productId": "premium"}"#).0 == .ok)

            let alice = try await server.tenants!.tenant("alice").engine
            let bob = try await server.tenants!.tenant("bob").engine
            #expect(try await alice.transactions().count == 2)
            #expect(try await bob.transactions().count == 1)
            #expect(try await server.engine.transactions().isEmpty)
            #expect(await server.tenants!.openedTenants() == ["alice", "bob"])

            let (_, notifications) = try await call(client, .get, "/t/alice/control/notifications")
            #expect((notifications as? [[String: Any]])?.count == 1, "the second purchase of a non-consumable charges nothing")
            let (status, products) = try await call(client, .get, "/t/bob/v1/products")
            #expect(status == .ok)
            #expect(((products as? [String: Any])?["products"] as? [[String: Any]])?.first?["id"] as? String == "premium")
            #expect(try await call(client, .get, "/t/bob/health").0 == .ok)
        }
    }

    @Test("A tenant name that is not letters, digits, '.', '_' or '-' is refused with a message")
    func invalidNames() async throws {
        try await makeServer().makeApplication().test(.router) { client in
            let (status, body) = try await call(client, .get, "/t/bad%20name/health")
            #expect(status == .badRequest)
            #expect(((body as? [String: Any])?["error"] as? String)?.contains("not a tenant name") == true)
            #expect(try await call(client, .get, "/t/-dash/health").0 == .badRequest)
            #expect(try await call(client, .get, "/t/" + String(repeating: "a", count: 65) + "/health").0 == .badRequest)
        }
    }

    @Test("Tenants are created with a catalog of their own, listed, given a new catalog that outlives the server, and reset to new")
    func tenantLifecycle() async throws {
        let storage = InMemoryStorage()
        let demo = try String(contentsOf: ChildProcess.packageRoot.appendingPathComponent("Examples/Demo.storekit"), encoding: .utf8)
        try await makeServer(storage: storage).makeApplication().test(.router) { client in
            let (created, body) = try await call(client, .post, "/control/tenants", #"{"name": "checkout", "configuration": \#(demo)}"#)
            #expect(created == .created)
            #expect((body as? [String: Any])?["path"] as? String == "/t/checkout/")
            let products = try #require((body as? [String: Any])?["products"] as? Int)
            #expect(products > 1)
            #expect(try await call(client, .post, "/t/checkout/control/purchases", #"{"productId": "com.example.demo.premium"}"#).0 == .ok)
            // The catalog is the tenant's own: the server's premium is not for sale there.
            #expect(try await call(client, .post, "/t/checkout/control/purchases", #"{"productId": "premium"}"#).0 == .notFound)

            #expect(try await call(client, .post, "/control/tenants", #"{"name": "checkout"}"#).0 == .conflict)
            #expect(try await call(client, .post, "/control/tenants", #"{"name": "../etc"}"#).0 == .badRequest)
            #expect(try await call(client, .post, "/control/tenants", #"{"name": "broken", "configuration": {"products": 3}}"#).0 == .badRequest)

            let (_, listed) = try await call(client, .get, "/control/tenants")
            let names = ((listed as? [String: Any])?["tenants"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
            #expect(names == ["checkout"])

            let minimal = #"{"identifier": "X", "products": [{"displayPrice": "1.99", "familyShareable": false, "internalID": "1", "localizations": [{"description": "d", "displayName": "n", "locale": "en_US"}], "productID": "com.example.only", "referenceName": "Only", "type": "NonConsumable"}], "settings": {}, "subscriptionGroups": [], "version": {"major": 4, "minor": 0}}"#
            let (replaced, afterReplace) = try await call(client, .put, "/control/tenants/checkout/catalog", minimal)
            #expect(replaced == .ok)
            #expect((afterReplace as? [String: Any])?["products"] as? Int == 1)
            #expect(try await call(client, .post, "/t/checkout/control/purchases", #"{"productId": "com.example.only"}"#).0 == .ok)

            let (reset, _) = try await call(client, .post, "/control/tenants/checkout/reset")
            #expect(reset == .ok)
            let (_, bought) = try await call(client, .post, "/t/checkout/control/purchases", #"{"productId": "com.example.only"}"#)
            #expect((bought as? [String: Any])?["transactionId"] as? String == "2000000000000001")
        }
        // A server started again on the same storage opens the tenant with the catalog it was last given.
        try await makeServer(storage: storage).makeApplication().test(.router) { client in
            #expect(try await call(client, .post, "/t/checkout/control/purchases", #"{"productId": "com.example.only"}"#).0 == .ok)
            let (_, listed) = try await call(client, .get, "/control/tenants")
            let entry = ((listed as? [String: Any])?["tenants"] as? [[String: Any]])?.first
            #expect(entry?["hasOwnCatalog"] as? Bool == true)
        }
    }

    @Test("A deleted tenant is gone from every server on the storage with its catalog; its name is free for a new tenant that starts from nothing; deleting it again is 404")
    func deleteTenant() async throws {
        let storage = InMemoryStorage()
        let demo = try String(contentsOf: ChildProcess.packageRoot.appendingPathComponent("Examples/Demo.storekit"), encoding: .utf8)
        try await makeServer(storage: storage).makeApplication().test(.router) { client in
            #expect(try await call(client, .post, "/control/tenants", #"{"name": "checkout", "configuration": \#(demo)}"#).0 == .created)
            #expect(try await call(client, .post, "/t/checkout/control/purchases", #"{"productId": "com.example.demo.premium"}"#).0 == .ok)

            #expect(try await call(client, .delete, "/control/tenants/checkout").0 == .noContent)
            let (_, listed) = try await call(client, .get, "/control/tenants")
            #expect(((listed as? [String: Any])?["tenants"] as? [Any])?.isEmpty == true)
            #expect(try await call(client, .delete, "/control/tenants/checkout").0 == .notFound)
            #expect(try await call(client, .delete, "/control/tenants/..").0 == .badRequest)

            // The name is free: a tenant made with it sells the server's catalog and starts its identifiers over.
            #expect(try await call(client, .post, "/control/tenants", #"{"name": "checkout"}"#).0 == .created)
            #expect(try await call(client, .post, "/t/checkout/control/purchases", #"{"productId": "com.example.demo.premium"}"#).0 == .notFound)
            let (_, bought) = try await call(client, .post, "/t/checkout/control/purchases", #"{"productId": "premium"}"#)
            #expect((bought as? [String: Any])?["transactionId"] as? String == "2000000000000001")
            #expect(try await call(client, .delete, "/control/tenants/checkout").0 == .noContent)
        }
        // Another server on the storage finds nothing of it.
        try await makeServer(storage: storage).makeApplication().test(.router) { client in
            let (_, listed) = try await call(client, .get, "/control/tenants")
            #expect(((listed as? [String: Any])?["tenants"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("A tenants/<name>.storekit file of an earlier version is stored as the tenant's catalog once and renamed *.imported; a tenant with a stored catalog keeps it; the server's tenant's file is left")
    func catalogFilesAreImported() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-tenants-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func document(selling productID: String) -> String {
            #"{"identifier": "X", "products": [{"displayPrice": "1.99", "familyShareable": false, "internalID": "1", "localizations": [{"description": "d", "displayName": "n", "locale": "en_US"}], "productID": "\#(productID)", "referenceName": "Only", "type": "NonConsumable"}], "settings": {}, "subscriptionGroups": [], "version": {"major": 4, "minor": 0}}"#
        }
        try Data(document(selling: "com.example.legacy").utf8).write(to: folder.appendingPathComponent("legacy.storekit"))
        try Data(document(selling: "com.example.file").utf8).write(to: folder.appendingPathComponent("kept.storekit"))
        try Data(document(selling: "com.example.server").utf8).write(to: folder.appendingPathComponent("default.storekit"))
        let storage = InMemoryStorage()
        let newer = Data(document(selling: "com.example.newer").utf8)
        try await storage.transaction(tenant: "kept") { try $0.write(.saveCatalog(newer)) }

        #expect(try await TenantDirectory.importCatalogFiles(tenantFolder: folder, into: storage, serverTenant: "default") == 1)
        #expect(try await TenantDirectory.importCatalogFiles(tenantFolder: folder, into: storage, serverTenant: "default") == 0, "imported once")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files == ["default.storekit", "kept.storekit.imported", "legacy.storekit.imported"])
        #expect(await storage.tenantsWithCatalogs() == ["kept", "legacy"])

        try await makeServer(storage: storage).makeApplication().test(.router) { client in
            #expect(try await call(client, .post, "/t/legacy/control/purchases", #"{"productId": "com.example.legacy"}"#).0 == .ok)
            #expect(try await call(client, .post, "/t/kept/control/purchases", #"{"productId": "com.example.newer"}"#).0 == .ok)
            let (_, listed) = try await call(client, .get, "/control/tenants")
            let names = ((listed as? [String: Any])?["tenants"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
            #expect(names == ["kept", "legacy"])
        }
    }

    @Test("A tenant exported from one server and imported into another tenant continues where it was: purchases, identifiers, clock")
    func exportAndImport() async throws {
        let data = try await makeServer().makeApplication().test(.router) { client -> Data in
            #expect(try await call(client, .post, "/t/source/control/purchases", #"{"productId": "premium", "account": "alice"}"#).0 == .ok)
            #expect(try await call(client, .post, "/t/source/control/clock/advance", #"{"by": "3d"}"#).0 == .ok)
            return try await client.execute(uri: "/control/tenants/source/export", method: .get) { response in
                #expect(response.status == .ok)
                return Data(response.body.readableBytesView)
            }
        }
        let snapshot = try TenantSnapshot.makeDecoder().decode(TenantSnapshot.self, from: data)
        #expect(snapshot.transactions.map(\.productID) == ["premium"])

        try await makeServer().makeApplication().test(.router) { client in
            let imported = try await client.execute(uri: "/control/tenants/copy/import", method: .put, body: ByteBuffer(bytes: data)) { $0.status }
            #expect(imported == .ok)
            let (_, listed) = try await call(client, .get, "/t/copy/control/transactions")
            #expect((listed as? [[String: Any]])?.map { $0["account"] as? String } == ["alice"])
            let (_, next) = try await call(client, .post, "/t/copy/control/purchases", #"{"productId": "premium", "account": "bob"}"#)
            #expect((next as? [String: Any])?["transactionId"] as? String == "2000000000000002")
            #expect(try await call(client, .put, "/control/tenants/copy/import", #"{"format": 1}"#).0 == .badRequest)
        }
    }
}
