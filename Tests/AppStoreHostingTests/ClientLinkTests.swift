import Foundation
import Testing

/// The client carries what it uses: an app linking `OpenStoreKit` gets the store engine and, with the default SQLite
/// trait, SQLite, but neither PostgreSQL nor the server nor their network stack.
@Suite("What an app links")
struct ClientLinkTests {
    /// The build's products folder: where this test binary was built, beside the example apps.
    static let productsFolder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()

    /// The modules whose objects a product's link step takes, read from the list SwiftPM hands the linker.
    static func linkedModules(of product: String) throws -> Set<String> {
        let list = productsFolder.appendingPathComponent("\(product).product/Objects.LinkFileList")
        let text = try String(contentsOf: list, encoding: .utf8)
        return Set(text.split(separator: "\n").compactMap { line in
            // …/debug/MODULE.build/FILE.o
            line.split(separator: "/").dropLast().last.flatMap { $0.hasSuffix(".build") ? String($0.dropLast(".build".count)) : nil }
        })
    }

    @Test("The example apps link OpenStoreKit and SQLite, and no PostgreSQL, server, HTTP server or TLS", arguments: ["InAppPurchases", "ModernStore"])
    func exampleAppsLinkNoServerStack(product: String) throws {
        let modules = try Self.linkedModules(of: product)
        #expect(modules.isSuperset(of: ["OpenStoreKit", "AppStoreEngine", "AppStoreHosting", "AppStoreSQLite", "GRDB"]), "\(modules.sorted())")
        let serverStack = ["AppStorePostgres", "PostgresNIO", "AppStoreServer", "Hummingbird", "NIOSSL", "NIOCore", "NIOPosix"]
        #expect(modules.isDisjoint(with: serverStack), "\(product) links \(modules.intersection(serverStack).sorted())")
        // The command links everything, so the list is read right: the same check finds the server stack there.
        #expect(try Self.linkedModules(of: "storekit").isSuperset(of: ["AppStorePostgres", "PostgresNIO", "AppStoreServer", "NIOSSL"]))
    }
}
