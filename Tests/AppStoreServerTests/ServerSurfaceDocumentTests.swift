import AppStoreEngine
import AppStoreServer
import Foundation
import HTTPTypes
import Hummingbird
import Testing

/// The endpoint table of `ServerSurface.md`: every App Store Server API, Advanced Commerce and External Purchase
/// route the server registers is a row, and every row is a registered route.
@Suite("Server surface document")
struct ServerSurfaceDocumentTests {
    /// The prefixes of Apple's surfaces among the server's routes.
    static let applePrefixes = ["/inApps/", "/advancedCommerce/", "/externalPurchase/"]

    /// `Sources/AppStoreServer/AppStoreServer.docc/ServerSurface.md`.
    static let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/AppStoreServer/AppStoreServer.docc/ServerSurface.md")

    /// The `METHOD /path` of each row of the article's endpoint tables: a row whose first cell is a method in code
    /// voice and whose second cell is a path in code voice.
    static func documentedEndpoints() throws -> Set<String> {
        let text = try String(contentsOf: article, encoding: .utf8)
        let methods: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE"]
        return Set(text.split(separator: "\n").compactMap { line -> String? in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count > 3, cells[0].isEmpty else { return nil }
            let method = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let path = cells[2].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            guard methods.contains(method), path.hasPrefix("/") else { return nil }
            return "\(method) \(path)"
        })
    }

    @Test("Every Apple route the router registers is a row of ServerSurface.md's endpoint tables, and every row is a registered route")
    func everyAppleRouteInTheTable() throws {
        let start = Date(timeIntervalSince1970: 1_768_478_400)
        let engine = StoreEngine(
            catalog: Catalog(products: []), storage: InMemoryStorage(), clock: VirtualClock(start: start), signer: .ephemeral
        )
        let registered = Set(
            StoreServer(engine: engine, port: 0).makeRouter().routes
                .map { route in
                    // Hummingbird writes captures as `:name`; the article, as Apple does, as `{name}`.
                    let path = "/" + route.path.description.split(separator: "/").map { part in
                        part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
                    }.joined(separator: "/")
                    return "\(route.method.rawValue) \(path)"
                }
                .filter { route in Self.applePrefixes.contains { route.contains(" \($0)") } }
        )
        let documented = try Self.documentedEndpoints()
        #expect(registered.count > 30)
        #expect(registered.subtracting(documented).sorted() == [], "routes missing from ServerSurface.md")
        #expect(documented.subtracting(registered).sorted() == [], "rows of ServerSurface.md the router does not have")
    }
}
