import Foundation
import Testing
import TestProcesses

@Suite("storekit store commands", .limitsChildProcesses)
struct StoreCommandTests {
    let dataDirectory = temporaryDataDirectory()

    func purchase(_ productID: String, _ extra: [String] = []) async throws -> [String: Any] {
        let run = try await storekit(["purchase", productID, "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--json"] + extra)
        #expect(run.status == 0, "\(run.errorOutput)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
    }

    @Test("A purchase survives the process and shows in `storekit tx list` of a later process")
    func purchaseSurvivesRestart() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let bought = try await purchase("com.example.demo.premium", ["--account", "alice", "--bundle-id", "com.example.demo"])
        let id = try #require(bought["transactionId"] as? String)
        #expect(bought["originalTransactionId"] as? String == id)
        #expect(bought["productId"] as? String == "com.example.demo.premium")
        #expect(bought["bundleId"] as? String == "com.example.demo")
        #expect((bought["purchaseDate"] as? String)?.hasSuffix("Z") == true)

        let listed = try await storekit(["tx", "list", "--data-dir", dataDirectory.path, "--json"])
        #expect(listed.status == 0)
        let all = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect(all.map { $0["transactionId"] as? String } == [id])
        #expect(all.first?["account"] as? String == "alice")

        let second = try await purchase("com.example.demo.coins.100", ["--quantity", "3"])
        #expect(second["quantity"] as? Int == 3)
        #expect((second["transactionId"] as? String).flatMap(UInt64.init)! > UInt64(id)!)
        let aliceOnly = try await storekit(["tx", "list", "--data-dir", dataDirectory.path, "--account", "alice"])
        #expect(aliceOnly.output.split(separator: "\n").count == 1)
    }

    @Test("`tx refund`, `tx delete` and `tx clear` change what `storekit tx list` shows")
    func refundDeleteClear() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let premium = try #require(try await purchase("com.example.demo.premium")["transactionId"] as? String)
        let coins = try #require(try await purchase("com.example.demo.coins.100")["transactionId"] as? String)

        #expect(try await storekit(["tx", "refund", premium, "--reason", "app-issue", "--data-dir", dataDirectory.path]).status == 0)
        var listed = try await storekit(["tx", "list", "--data-dir", dataDirectory.path, "--json"])
        var all = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect(all.first { $0["transactionId"] as? String == premium }?["revocationReason"] as? Int == 1)
        #expect(all.first { $0["transactionId"] as? String == premium }?["revocationDate"] != nil)

        #expect(try await storekit(["tx", "delete", coins, "--data-dir", dataDirectory.path]).status == 0)
        listed = try await storekit(["tx", "list", "--data-dir", dataDirectory.path, "--json"])
        all = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect(all.map { $0["transactionId"] as? String } == [premium])

        #expect(try await storekit(["tx", "clear", "--data-dir", dataDirectory.path]).status == 0)
        listed = try await storekit(["tx", "list", "--data-dir", dataDirectory.path, "--json"])
        all = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect(all.isEmpty)
    }

    @Test("The data directory comes from OPENSTOREKIT_DATA_DIR when --data-dir is not given")
    func dataDirectoryFromEnvironment() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let run = try await storekit(["purchase", "com.example.demo.premium", "--config", demoConfiguration], environment: ["OPENSTOREKIT_DATA_DIR": dataDirectory.path])
        #expect(run.status == 0, "\(run.errorOutput)")
        #expect(FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("store.sqlite").path))
    }

    @Test("Mistakes exit 1 with a message that says what to do")
    func mistakes() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let unknown = try await storekit(["purchase", "no.such.product", "--config", demoConfiguration, "--data-dir", dataDirectory.path])
        #expect(unknown.status == 1)
        #expect(unknown.errorOutput.contains("No product \"no.such.product\""))
        let quantity = try await storekit(["purchase", "com.example.demo.premium", "--quantity", "2", "--config", demoConfiguration, "--data-dir", dataDirectory.path])
        #expect(quantity.status == 1)
        #expect(quantity.errorOutput.contains("only consumables"))
        let missingTransaction = try await storekit(["tx", "refund", "2000000000000999", "--data-dir", dataDirectory.path])
        #expect(missingTransaction.status == 1)
        #expect(missingTransaction.errorOutput.contains("No transaction 2000000000000999"))
        let notANumber = try await storekit(["tx", "delete", "abc", "--data-dir", dataDirectory.path])
        #expect(notANumber.status != 0)
        #expect(notANumber.errorOutput.contains("not a transaction identifier"))
        let missingFile = try await storekit(["purchase", "x", "--config", "/nonexistent/Nope.storekit", "--data-dir", dataDirectory.path])
        #expect(missingFile.status != 0)
        #expect(missingFile.errorOutput.contains("Nope.storekit"))
    }

    @Test("`storekit subscriptions` lists a subscription bought in another process, renewing, with its period")
    func subscriptionsList() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let empty = try await storekit(["subscriptions", "--data-dir", dataDirectory.path])
        #expect(empty.status == 0)
        #expect(empty.output.contains("No subscriptions"))

        let bought = try await purchase("com.example.demo.plus.monthly")
        let listed = try await storekit(["subscriptions", "--data-dir", dataDirectory.path, "--json"])
        #expect(listed.status == 0, "\(listed.errorOutput)")
        let all = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect(all.count == 1)
        #expect(all.first?["originalTransactionId"] as? String == bought["transactionId"] as? String)
        #expect(all.first?["status"] as? String == "active")
        #expect(all.first?["autoRenewStatus"] as? Int == 1)
        #expect(all.first?["autoRenewProductId"] as? String == "com.example.demo.plus.monthly")
        #expect(all.first?["expiresDate"] as? String == bought["expiresDate"] as? String)

        let text = try await storekit(["subscriptions", "--data-dir", dataDirectory.path])
        #expect(text.output.contains("renews into com.example.demo.plus.monthly"))
    }

    @Test("Every command's help teaches with an example of itself", arguments: [
        "serve", "purchase", "subscriptions", "tx", "tx list", "tx show", "tx refund", "tx approve", "tx decline", "tx resolve",
        "tx expire", "tx renew", "tx auto-renew", "tx price-consent", "tx delete", "tx clear", "notifications",
        "notifications list", "notifications show", "notifications redeliver", "notifications url", "notifications url show",
        "notifications url set", "notifications url clear", "settings", "settings show", "settings set", "family", "family join",
        "family leave", "tenants", "tenants list", "tenants create", "tenants reset", "tenants export", "tenants import",
    ])
    func helpHasExamples(command: String) async throws {
        let run = try await storekit(command.split(separator: " ").map(String.init) + ["--help"])
        #expect(run.status == 0)
        #expect(run.output.contains("Example"), "\(command)")
        #expect(run.output.contains("\n  storekit \(command) "), "an indented example line in the help of \(command)")
    }

    @Test("The transaction commands live under `storekit tx` only: a former name says which subcommand replaced it", arguments: [
        ("transactions", "list"), ("refund", "refund"), ("approve", "approve"), ("auto-renew", "auto-renew"), ("clear", "clear"),
    ])
    func transactionCommandsMoved(command: String, replacement: String) async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let run = try await storekit([command, "2000000000000001", "--data-dir", dataDirectory.path])
        #expect(run.status != 0)
        #expect(run.errorOutput.contains("`storekit \(command)` is now `storekit tx \(replacement)`"), "\(run.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: dataDirectory.path), "nothing was done")
        #expect(!(try await storekit(["--help"]).output.contains("  \(command) ")), "not listed in help")
    }

    @Test("approve, resolve, renew, auto-renew, price-consent and expire act on the store as SKTestSession's controls do")
    func transactionActions() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let monthly = try #require(try await purchase("com.example.demo.plus.monthly")["transactionId"] as? String)
        func run(_ arguments: [String]) async throws -> StorekitRun {
            try await storekit(arguments + ["--config", demoConfiguration, "--data-dir", dataDirectory.path])
        }
        let renewed = try await run(["tx", "renew", monthly])
        #expect(renewed.status == 0, "\(renewed.errorOutput)")
        #expect(renewed.output.contains("renewal of \(monthly)"))
        #expect(try await run(["tx", "auto-renew", monthly, "off"]).output.contains("auto-renew off"))
        #expect(try await run(["tx", "auto-renew", monthly, "on"]).output.contains("auto-renew on"))
        #expect(try await run(["tx", "price-consent", monthly, "request"]).output.contains("price increase pending"))
        #expect(try await run(["tx", "price-consent", monthly, "accept"]).output.contains("price increase agreed"))
        let refused = try await run(["tx", "price-consent", monthly, "accept"])
        #expect(refused.status != 0)
        #expect(refused.errorOutput.contains("no price increase waiting"), "\(refused.errorOutput)")
        #expect(try await run(["tx", "expire", monthly]).output.contains("expired"))
        let resolveNothing = try await run(["tx", "resolve", monthly])
        #expect(resolveNothing.status != 0)
        #expect(resolveNothing.errorOutput.contains("not interrupted"), "\(resolveNothing.errorOutput)")
        let notifications = try await storekit(["notifications", "--data-dir", dataDirectory.path]).output // list, the default
        for summary in ["DID_RENEW", "AUTO_RENEW_DISABLED", "AUTO_RENEW_ENABLED", "PRICE_INCREASE/PENDING", "PRICE_INCREASE/ACCEPTED", "EXPIRED/VOLUNTARY"] {
            #expect(notifications.contains(summary), "\(summary) in \(notifications)")
        }
    }
}
