import Foundation
import Testing
import TestProcesses

/// `storekit tenants list|create|reset|export|import`: a server's tenants through its server-wide control API, and a
/// data directory's.
@Suite("storekit tenants", .limitsChildProcesses)
struct TenantCommandTests {
    let dataDirectory = temporaryDataDirectory()

    /// The identifiers of the transactions `tx list --json` prints for `place`, with the account of each.
    func transactions(_ place: [String]) async throws -> [String] {
        try #require(try jsonOutput(try await storekit(["tx", "list", "--json"] + place)) as? [[String: Any]])
            .map { "\($0["transactionId"] as? String ?? "?") \($0["account"] as? String ?? "?")" }
    }

    /// A JSON object a command printed.
    func object(_ arguments: [String]) async throws -> [String: Any] {
        try #require(try jsonOutput(try await storekit(arguments)) as? [String: Any])
    }

    @Test("On a server: a tenant created with a catalog, bought in, exported, imported into another with the same transactions, and reset to empty")
    func onServer() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let (server, port, address) = try await startStorekitServe(dataDirectory: dataDirectory)
        defer { server.terminate() }
        let remote = ["--server", address]

        let created = try await object(["tenants", "create", "shop", "--config", demoConfiguration, "--json"] + remote)
        #expect(created["name"] as? String == "shop")
        #expect(created["path"] as? String == "/t/shop/")
        #expect(created["products"] as? Int == 8)
        let text = try await storekit(["tenants", "create", "replay"] + remote)
        #expect(text.status == 0, "\(text.errorOutput)")
        #expect(text.output.contains("Created tenant replay selling 8 products from the server's catalog, at \(address)/t/replay/"), "\(text.output)")
        #expect(text.output.contains("Act on it with --server \(address) --tenant replay."))
        let taken = try await storekit(["tenants", "create", "shop"] + remote)
        #expect(taken.status == 1)
        #expect(taken.errorOutput.contains("(409): Tenant shop already exists."), "\(taken.errorOutput)")

        let listed = try #require(try jsonOutput(try await storekit(["tenants", "list", "--json"] + remote)) as? [[String: Any]])
        let shop = try #require(listed.first { $0["name"] as? String == "shop" })
        #expect(shop["hasOwnCatalog"] as? Bool == true)
        #expect(listed.first { $0["name"] as? String == "replay" }?["hasOwnCatalog"] as? Bool == false)
        let lines = try await storekit(["tenants"] + remote).output // list, the default
        let shopLine = lines.split(separator: "\n").first { $0.hasPrefix("shop ") }
        #expect(shopLine?.hasSuffix("  \(address)/t/shop/  8 products, its own catalog") == true, "\(lines)")

        // A scenario in shop: purchases and a subscription, with their notifications.
        let inShop = remote + ["--tenant", "shop"]
        for (product, account) in [("com.example.demo.premium", "alice"), ("com.example.demo.plus.monthly", "bob")] {
            _ = try await object(["purchase", product, "--account", account, "--json"] + inShop)
        }
        let shopTransactions = try await transactions(inShop)
        #expect(shopTransactions.count == 2)

        let export = dataDirectory.appendingPathComponent("shop.json")
        let exported = try await storekit(["tenants", "export", "shop", "--out", export.path] + remote)
        #expect(exported.status == 0, "\(exported.errorOutput)")
        #expect(exported.output.contains("Exported tenant shop on the server at \(address) to \(export.path): 2 accounts, 2 transactions, 1 subscription, 2 notifications."), "\(exported.output)")
        let onStandardOutput = try #require(try jsonOutput(try await storekit(["tenants", "export", "shop"] + remote)) as? [String: Any])
        #expect((onStandardOutput["transactions"] as? [Any])?.count == 2)
        #expect(onStandardOutput["format"] as? Int == 1)

        let imported = try await object(["tenants", "import", "replay", export.path, "--json"] + remote)
        #expect(imported["name"] as? String == "replay")
        let counts = try #require(imported["imported"] as? [String: Int])
        #expect(counts == ["accounts": 2, "transactions": 2, "subscriptions": 1, "notifications": 2])
        let inReplay = remote + ["--tenant", "replay"]
        #expect(try await transactions(inReplay) == shopTransactions, "the same transactions, by the same identifiers and accounts")
        let seen = try await httpGet(URL(string: "http://127.0.0.1:\(port)/t/replay/control/subscriptions?account=bob")!)
        #expect((try JSONSerialization.jsonObject(with: seen.body) as? [Any])?.count == 1)

        let reset = try await storekit(["tenants", "reset", "replay"] + remote)
        #expect(reset.status == 0, "\(reset.errorOutput)")
        #expect(reset.output.contains("Reset tenant replay on the server at \(address): erased 2 accounts, 2 transactions, 1 subscription, 2 notifications."), "\(reset.output)")
        #expect(try await transactions(inReplay).isEmpty)
        let resetAgain = try await object(["tenants", "reset", "replay", "--json"] + remote)
        #expect(resetAgain["erased"] as? [String: Int] == ["accounts": 0, "transactions": 0, "subscriptions": 0, "notifications": 0])
        #expect(try await transactions(inShop) == shopTransactions, "the other tenant keeps its state")
        let next = try await object(["purchase", "com.example.demo.premium", "--json"] + inReplay)
        #expect(next["transactionId"] as? String == "2000000000000001", "identifiers start over after a reset")
    }

    @Test("In the data directory: export, import into another tenant with the same transactions, and reset, without a server")
    func inDataDirectory() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let place = ["--data-dir", dataDirectory.path]
        for product in ["com.example.demo.premium", "com.example.demo.coins.100"] {
            _ = try await object(["purchase", product, "--config", demoConfiguration, "--account", "carol", "--tenant", "scenario", "--json"] + place)
        }
        let scenario = try await transactions(place + ["--tenant", "scenario"])
        #expect(scenario.count == 2)

        let exported = try await storekit(["tenants", "export", "scenario"] + place)
        #expect(exported.status == 0, "\(exported.errorOutput)")
        let export = dataDirectory.appendingPathComponent("scenario.json")
        try Data(exported.output.utf8).write(to: export)

        let imported = try await storekit(["tenants", "import", "copy", export.path, "--no-progress"] + place)
        #expect(imported.status == 0, "\(imported.errorOutput)")
        #expect(imported.output.contains("Imported \(export.path) into tenant copy in \(dataDirectory.path), replacing what it held: 1 account, 2 transactions, 0 subscriptions, 2 notifications."), "\(imported.output)")
        #expect(imported.errorOutput.isEmpty, "no progress bar for a small file")
        #expect(try await transactions(place + ["--tenant", "copy"]) == scenario)

        // A large file (the same export, padded with 9 MB of JSON whitespace) is read with a progress bar.
        let large = dataDirectory.appendingPathComponent("large.json")
        try (Data(exported.output.utf8) + Data(repeating: UInt8(ascii: " "), count: 9 << 20)).write(to: large)
        let read = try await storekit(["tenants", "import", "large", large.path, "--progress"] + place)
        #expect(read.status == 0, "\(read.errorOutput)")
        #expect(read.errorOutput.contains("reading large.json ["), "\(read.errorOutput.suffix(300))")
        #expect(read.errorOutput.contains("100%  9 of 9 MB\n"), "\(read.errorOutput.suffix(300))")
        #expect(try await transactions(place + ["--tenant", "large"]) == scenario)

        let reset = try await object(["tenants", "reset", "copy", "--json"] + place)
        #expect(reset["name"] as? String == "copy")
        #expect(reset["erased"] as? [String: Int] == ["accounts": 1, "transactions": 2, "subscriptions": 0, "notifications": 2])
        #expect(try await transactions(place + ["--tenant", "copy"]).isEmpty)
        #expect(try await transactions(place + ["--tenant", "scenario"]) == scenario, "the exported tenant keeps its state")
    }

    @Test("In the data directory: a tenant created with a catalog of its own is listed, sells it to commands, and a server on the directory serves it")
    func createdInDataDirectory() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let place = ["--data-dir", dataDirectory.path]
        // A catalog of one product: the Demo file without its subscriptions and all but its first product.
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: demoConfiguration))) as? [String: Any])
        let first = try #require((document["products"] as? [[String: Any]])?.first)
        document["products"] = [first]
        document["subscriptionGroups"] = []
        document["nonRenewingSubscriptions"] = []
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let small = dataDirectory.appendingPathComponent("Small.storekit")
        try JSONSerialization.data(withJSONObject: document).write(to: small)
        let productID = try #require(first["productID"] as? String)

        let created = try await storekit(["tenants", "create", "shop", "--config", small.path] + place)
        #expect(created.status == 0, "\(created.errorOutput)")
        #expect(created.output.contains("Created tenant shop selling 1 product from \(small.path), in \(dataDirectory.path)"), "\(created.output)")
        let taken = try await storekit(["tenants", "create", "shop", "--config", demoConfiguration] + place)
        #expect(taken.status == 1)
        #expect(taken.errorOutput.contains("Tenant shop already exists in \(dataDirectory.path). Reset it (`storekit tenants reset shop`) or pick another name."), "\(taken.errorOutput)")

        // A command naming the tenant, with no --config, sells the catalog stored with it.
        let bought = try await object(["purchase", productID, "--tenant", "shop", "--json"] + place)
        #expect(bought["productId"] as? String == productID)
        _ = try await object(["purchase", "com.example.demo.premium", "--config", demoConfiguration, "--tenant", "scratch", "--json"] + place)

        let listed = try await storekit(["tenants", "list"] + place)
        #expect(listed.output.split(separator: "\n").map(String.init) == [
            "scratch  the catalog each command gives (--config)",
            "shop     its own catalog",
        ], "\(listed.output)")

        // A server on the directory lists both tenants, and serves shop with its own catalog.
        let (server, _, address) = try await startStorekitServe(dataDirectory: dataDirectory)
        defer { server.terminate() }
        let served = try #require(try jsonOutput(try await storekit(["tenants", "list", "--json", "--server", address])) as? [[String: Any]])
        #expect(served.map { $0["name"] as? String } == ["scratch", "shop"])
        #expect(served.map { $0["hasOwnCatalog"] as? Bool } == [false, true])
        let remoteShop = ["--server", address, "--tenant", "shop"]
        let boughtThere = try await object(["purchase", productID, "--account", "dana", "--json"] + remoteShop)
        #expect(boughtThere["productId"] as? String == productID)
        let notSold = try await storekit(["purchase", "com.example.demo.premium", "--account", "dana"] + remoteShop)
        #expect(notSold.status != 0, "only the one product of its own catalog is sold: \(notSold.output)")
        #expect(try await transactions(remoteShop).count == 2)

        // Deleted through the server, the tenant is gone from the directory too; scratch is deleted in the directory.
        let deleted = try await storekit(["tenants", "delete", "shop", "--server", address])
        #expect(deleted.status == 0, "\(deleted.errorOutput)")
        #expect(deleted.output.contains("Deleted tenant shop on the server at \(address)"), "\(deleted.output)")
        let deletedHere = try await storekit(["tenants", "delete", "scratch"] + place)
        #expect(deletedHere.status == 0, "\(deletedHere.errorOutput)")
        let again = try await storekit(["tenants", "delete", "scratch"] + place)
        #expect(again.status == 1)
        #expect(again.errorOutput.contains("There is no tenant scratch"), "\(again.errorOutput)")
        let serverTenant = try await storekit(["tenants", "delete", "default", "--server", address])
        #expect(serverTenant.status == 1)
        #expect(serverTenant.errorOutput.contains("default is the server's own store"), "\(serverTenant.errorOutput)")
        let defaultHere = try await storekit(["tenants", "delete", "default"] + place)
        #expect(defaultHere.status == 1)
        #expect(defaultHere.errorOutput.contains("it cannot be deleted. Empty it with `storekit tenants reset default`"), "\(defaultHere.errorOutput)")
        #expect(try #require(try jsonOutput(try await storekit(["tenants", "list", "--json"] + place)) as? [Any]).isEmpty)
    }

    @Test("An export from a data directory continues on a server: the same transactions under a tenant of it")
    func dataDirectoryToServer() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let local = ["--data-dir", dataDirectory.appendingPathComponent("local").path]
        _ = try await object(["purchase", "com.example.demo.premium", "--config", demoConfiguration, "--json"] + local)
        let export = dataDirectory.appendingPathComponent("local.json")
        #expect(try await storekit(["tenants", "export", "default", "--out", export.path] + local).status == 0)

        let (server, _, address) = try await startStorekitServe(dataDirectory: dataDirectory.appendingPathComponent("served"))
        defer { server.terminate() }
        let imported = try await storekit(["tenants", "import", "moved", export.path, "--server", address])
        #expect(imported.status == 0, "\(imported.errorOutput)")
        #expect(imported.output.contains("into tenant moved on the server at \(address)"), "\(imported.output)")
        #expect(try await transactions(["--server", address, "--tenant", "moved"]) == transactions(local))
    }

    @Test("`tenants` refuses bad names, a missing server, and a file that is not an export, changing nothing")
    func mistakes() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let place = ["--data-dir", dataDirectory.path]
        for name in ["bad name", "../etc", ".dot-first", "", String(repeating: "a", count: 65)] {
            for command in [["reset", name], ["export", name], ["import", name, demoConfiguration], ["create", name]] {
                let refused = try await storekit(["tenants"] + command + place)
                #expect(refused.status != 0)
                #expect(refused.errorOutput.contains("\"\(name)\" is not a tenant name: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"), "\(command): \(refused.errorOutput)")
            }
        }
        let listed = try await storekit(["tenants", "list"] + place)
        #expect(listed.status == 0, "\(listed.errorOutput)")
        #expect(listed.output.contains("No tenants in \(dataDirectory.path) yet"), "\(listed.output)")
        let created = try await storekit(["tenants", "create", "checkout-42"] + place)
        #expect(created.status != 0)
        #expect(created.errorOutput.contains("A tenant made in the storage (no --server) sells the catalog it is created with: give --config FILE."), "\(created.errorOutput)")
        #expect(created.errorOutput.contains("the first command given --tenant checkout-42 makes it"), "\(created.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: dataDirectory.path), "the data directory is not touched")
        let badConfig = try await storekit(["tenants", "create", "checkout-42", "--config", "/nonexistent/Products.storekit", "--server", "http://127.0.0.1:9"])
        #expect(badConfig.status != 0)
        #expect(badConfig.errorOutput.contains("/nonexistent/Products.storekit"), "\(badConfig.errorOutput)")

        // A store with a purchase, which a bad import must leave as it is.
        _ = try await object(["purchase", "com.example.demo.premium", "--config", demoConfiguration, "--json"] + place)
        let before = try await transactions(place)
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let newer = dataDirectory.appendingPathComponent("newer.json")
        try Data(#"{"format": 99, "accounts": []}"#.utf8).write(to: newer)
        let notJSON = dataDirectory.appendingPathComponent("notes.txt")
        try Data("not an export".utf8).write(to: notJSON)
        let cases: [(String, String)] = [
            (demoConfiguration, "\(demoConfiguration) is not a tenant export: it has no \"format\" field. Make one with `storekit tenants export NAME --out FILE`."),
            (notJSON.path, "\(notJSON.path) is not a tenant export: it is not JSON"),
            (newer.path, "\(newer.path) is an export of format 99; this storekit reads format 1. Export the tenant again with this version."),
            (dataDirectory.appendingPathComponent("missing.json").path, "No file at \(dataDirectory.appendingPathComponent("missing.json").path). Give the path of a file `storekit tenants export NAME --out FILE` wrote."),
        ]
        for (file, message) in cases {
            for target in [place, ["--server", "http://127.0.0.1:9"]] {
                let refused = try await storekit(["tenants", "import", "default", file] + target)
                #expect(refused.status == 1)
                #expect(refused.errorOutput.contains(message), "\(file): \(refused.errorOutput)")
            }
        }
        #expect(try await transactions(place) == before, "nothing was imported")
    }
}
