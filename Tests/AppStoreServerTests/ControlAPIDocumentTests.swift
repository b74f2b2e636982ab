import AppStoreEngine
import AppStoreFormats
import AppStoreServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The OpenAPI document of the control API: served, and naming every control route the server has.
@Suite("Control API document")
struct ControlAPIDocumentTests {
    /// A server with tenants and keys, so the server-wide control routes are registered too.
    func makeServer() -> StoreServer {
        let start = Date(timeIntervalSince1970: 1_768_478_400)
        let catalog = Catalog(products: [CatalogProduct(id: "premium", type: .nonConsumable, price: Decimal(string: "4.99")!)])
        let storage = InMemoryStorage()
        var server = StoreServer(
            engine: StoreEngine(catalog: catalog, storage: InMemoryStorage(), clock: VirtualClock(start: start), signer: .ephemeral), port: 0)
        server.tenants = TenantDirectory { name, _ in
            TenantDirectory.Tenant(engine: StoreEngine(tenantID: name, catalog: catalog, storage: storage, clock: VirtualClock(start: start), signer: .ephemeral))
        }
        return server
    }

    /// `GET /control/openapi.json`, parsed.
    func document(from server: StoreServer) async throws -> [String: Any] {
        try await server.makeApplication().test(.router) { client in
            try await client.execute(uri: "/control/openapi.json", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                return try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
            }
        }
    }

    @Test("The server serves an OpenAPI 3.1 document at /control/openapi.json, also under a tenant's path")
    func served() async throws {
        let server = makeServer()
        let document = try await document(from: server)
        #expect(document["openapi"] as? String == "3.1.0")
        try await server.makeApplication().test(.router) { client in
            try await client.execute(uri: "/t/test-1/control/openapi.json", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test("Every control route the router registers is in the document with its method, and nothing else is")
    func everyRouteDocumented() async throws {
        let server = makeServer()
        let registered = Set(
            server.makeRouter().routes
                .map { route in
                    // Hummingbird writes captures as `:name` (or `{name}`); OpenAPI as `{name}`.
                    let path = "/" + route.path.description.split(separator: "/").map { part in
                        part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
                    }.joined(separator: "/")
                    return "\(route.method.rawValue) \(path)"
                }
                .filter { $0.contains(" /control/") }
        )
        let paths = try #require(try await document(from: server)["paths"] as? [String: [String: Any]])
        let documented = Set(paths.flatMap { path, operations in operations.keys.map { "\($0.uppercased()) \(path)" } })
        #expect(registered.count > 30)
        #expect(registered.subtracting(documented).sorted() == [], "routes missing from ControlAPIDocument")
        #expect(documented.subtracting(registered).sorted() == [], "documented routes the router does not have")
    }

    @Test("Every documented operation answers errors as {\"error\": …}: a 4xx response refers to the Error schema")
    func errorShapeDocumented() async throws {
        let paths = try #require(try await document(from: makeServer())["paths"] as? [String: [String: [String: Any]]])
        for (path, operations) in paths {
            for (method, operation) in operations {
                let responses = try #require(operation["responses"] as? [String: Any], "\(method) \(path)")
                for (status, response) in responses where status.hasPrefix("4") {
                    let text = String(describing: response)
                    #expect(text.contains("#/components/responses/") || text.contains("#/components/schemas/Error"), "\(method) \(path) \(status)")
                }
            }
        }
    }

    @Test("Every operation of the document is a ControlOperation with the document's method and path, and every ControlOperation is in the document")
    func operationsAreTheDocuments() async throws {
        let paths = try #require(try await document(from: makeServer())["paths"] as? [String: [String: [String: Any]]])
        var documented: [String: String] = [:]
        for (path, operations) in paths {
            for (method, operation) in operations {
                let id = try #require(operation["operationId"] as? String, "\(method) \(path) has no operationId")
                documented[id] = "\(method.uppercased()) \(path)"
            }
        }
        #expect(Set(documented.keys) == Set(ControlOperation.allCases.map(\.rawValue)))
        for operation in ControlOperation.allCases {
            #expect(documented[operation.rawValue] == "\(operation.method.rawValue) \(operation.pathTemplate)")
        }
    }

    @Test("An operation's path takes its parameters' values")
    func operationPaths() {
        #expect(ControlOperation.refundTransaction.path(["id": "42"]) == "/control/transactions/42/refund")
        #expect(ControlOperation.setMessageReviewState.path(["bundleId": "com.example.demo", "identifier": "abc"])
            == "/control/retention/com.example.demo/messages/abc/state")
        #expect(ControlOperation.purchase.path() == "/control/purchases")
        #expect(ControlOperation.purchase.method == .post)
    }
}
