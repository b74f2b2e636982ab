import Foundation
import Testing
import TestProcesses

/// A copy of the demo configuration with Ask to Buy on, in `directory`.
func askToBuyConfiguration(in directory: URL) throws -> String {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    var file = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: demoConfiguration))) as? [String: Any])
    var settings = try #require(file["settings"] as? [String: Any])
    settings["_askToBuyEnabled"] = true
    file["settings"] = settings
    let url = directory.appendingPathComponent("AskToBuy.storekit")
    try JSONSerialization.data(withJSONObject: file).write(to: url)
    return url.path
}

/// Decodes a command's JSON output, failing the test with its error output when it did not succeed.
func jsonOutput(_ run: StorekitRun, sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
    #expect(run.status == 0, "\(run.errorOutput)", sourceLocation: sourceLocation)
    return try JSONSerialization.jsonObject(with: Data(run.output.utf8))
}

/// `storekit tx …` on the data directory's store: listing with filters, one transaction in full, Ask to Buy.
@Suite("storekit tx", .limitsChildProcesses)
struct TransactionCommandTests {
    let dataDirectory = temporaryDataDirectory()

    func run(_ arguments: [String]) async throws -> StorekitRun {
        try await storekit(arguments + ["--data-dir", dataDirectory.path])
    }

    func object(_ arguments: [String]) async throws -> [String: Any] {
        try #require(try jsonOutput(try await run(arguments)) as? [String: Any])
    }

    func list(_ arguments: [String] = []) async throws -> [String] {
        try #require(try jsonOutput(try await run(["tx", "list", "--json"] + arguments)) as? [[String: Any]]).compactMap { $0["transactionId"] as? String }
    }

    func buy(_ productID: String, config: String = demoConfiguration) async throws -> [String: Any] {
        try await object(["purchase", productID, "--config", config, "--json"])
    }

    @Test("`tx show --json` prints the transaction with its signedTransaction and, for a subscription, its renewal state")
    func showSubscription() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let monthly = try #require(try await buy("com.example.demo.plus.monthly")["transactionId"] as? String)
        let shown = try await object(["tx", "show", monthly, "--json"])
        #expect(shown["transactionId"] as? String == monthly)
        #expect(shown["productId"] as? String == "com.example.demo.plus.monthly")
        #expect(shown["state"] as? String == "purchased")
        let subscription = try #require(shown["subscription"] as? [String: Any])
        #expect(subscription["originalTransactionId"] as? String == monthly)
        #expect(subscription["status"] as? String == "active")
        #expect(subscription["autoRenewStatus"] as? Int == 1)
        #expect(subscription["expiresDate"] as? String == shown["expiresDate"] as? String)

        // The JWS is the transaction's: `storekit jws decode` reads its identifier back.
        let token = try #require(shown["signedTransaction"] as? String)
        let decoded = try #require(try jsonOutput(try await storekit(["jws", "decode", token, "--json"])) as? [String: Any])
        #expect((decoded["payload"] as? [String: Any])?["transactionId"] as? String == monthly)

        #expect(try await run(["tx", "auto-renew", monthly, "off", "--config", demoConfiguration]).status == 0)
        #expect((try await object(["tx", "show", monthly, "--json"])["subscription"] as? [String: Any])?["autoRenewStatus"] as? Int == 0)
        let text = try await run(["tx", "show", monthly])
        #expect(text.status == 0, "\(text.errorOutput)")
        #expect(text.output.contains("transaction \(monthly)\n"))
        #expect(text.output.contains("product:      com.example.demo.plus.monthly (Auto-Renewable Subscription)"), "\(text.output)")
        #expect(text.output.contains("subscription \(monthly)"))
        #expect(text.output.contains("auto-renew:   off"))
        #expect(text.output.contains("next:         expires at \(shown["expiresDate"] as? String ?? "-")"), "\(text.output)")
    }

    @Test("`tx show` of a one-time purchase has no subscription, and a refund shows with its reason")
    func showOneTimePurchase() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let premium = try #require(try await buy("com.example.demo.premium")["transactionId"] as? String)
        #expect(try await run(["tx", "refund", premium, "--reason", "app-issue"]).status == 0)
        let shown = try await object(["tx", "show", premium, "--json"])
        #expect(shown["subscription"] == nil)
        #expect(shown["revocationReason"] as? Int == 1)
        let text = try await run(["tx", "show", premium]).output
        #expect(text.contains("product:      com.example.demo.premium (Non-Consumable)"), "\(text)")
        #expect(text.contains("refunded:     \(shown["revocationDate"] as? String ?? "-") (revocationReason 1)"), "\(text)")
        #expect(!text.contains("subscription"))
    }

    @Test("`tx list` keeps the transactions of a product, or in a state")
    func listFilters() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let premium = try #require(try await buy("com.example.demo.premium")["transactionId"] as? String)
        let monthly = try #require(try await buy("com.example.demo.plus.monthly")["transactionId"] as? String)
        let coins = try #require(try await buy("com.example.demo.coins.100")["transactionId"] as? String)
        #expect(try await run(["tx", "refund", premium]).status == 0)

        #expect(try await list() == [premium, monthly, coins])
        #expect(try await list(["--product", "com.example.demo.plus.monthly"]) == [monthly])
        #expect(try await list(["--state", "refunded"]) == [premium])
        #expect(try await list(["--state", "purchased"]) == [premium, monthly, coins])
        #expect(try await list(["--state", "pending-approval"]).isEmpty)
        #expect(try await run(["tx", "list", "--state", "declined"]).output.contains("No matching transactions in"))
        let bad = try await run(["tx", "list", "--state", "lost"])
        #expect(bad.status != 0)
        #expect(bad.errorOutput.contains("pending-approval"), "the error lists the states: \(bad.errorOutput)")
    }

    @Test("With Ask to Buy on, `tx approve` completes a waiting purchase and `tx decline` fails one; neither acts twice")
    func askToBuy() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let config = try askToBuyConfiguration(in: dataDirectory)
        let waiting = try await buy("com.example.demo.premium", config: config)
        let premium = try #require(waiting["transactionId"] as? String)
        #expect(waiting["state"] as? String == "pending-approval")
        #expect(waiting["signedTransaction"] == nil)

        let approved = try await run(["tx", "approve", premium, "--config", config])
        #expect(approved.status == 0, "\(approved.errorOutput)")
        #expect(approved.output.contains("\(premium)  com.example.demo.premium  purchased"), "\(approved.output)")
        let shown = try await object(["tx", "show", premium, "--json"])
        #expect(shown["state"] as? String == "purchased")
        #expect((shown["signedTransaction"] as? String)?.split(separator: ".").count == 3)

        let coins = try #require(try await buy("com.example.demo.coins.100", config: config)["transactionId"] as? String)
        #expect(try await run(["tx", "decline", coins, "--config", config]).output.contains("declined"))
        #expect(try await object(["tx", "show", coins, "--json"])["state"] as? String == "declined")
        #expect(try await list(["--state", "declined"]) == [coins])

        let again = try await run(["tx", "approve", premium, "--config", config])
        #expect(again.status == 1)
        #expect(again.errorOutput.contains("Cannot approve an Ask to Buy request for transaction \(premium): it is purchased"), "\(again.errorOutput)")
    }

    @Test("`tx show` refuses an unknown or malformed transaction identifier with what to do")
    func showMistakes() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let unknown = try await run(["tx", "show", "2000000000000999"])
        #expect(unknown.status == 1)
        #expect(unknown.errorOutput.contains("No transaction 2000000000000999"), "\(unknown.errorOutput)")
        for arguments in [["tx", "show", "abc"], ["tx", "approve", "abc", "--config", demoConfiguration], ["tx", "refund", "2000000000000001x"]] {
            let malformed = try await run(arguments)
            #expect(malformed.status != 0)
            #expect(malformed.errorOutput.contains("is not a transaction identifier. Use the number `storekit tx list` prints"), "\(arguments): \(malformed.errorOutput)")
        }
    }
}

/// `storekit tx` with `--server`: one transaction in full from a running server.
@Suite("storekit tx on a running server", .limitsChildProcesses)
struct ServerTransactionCommandTests {
    @Test("`tx show --server` prints the server's transaction with its JWS and subscription; an unknown one is the server's 404")
    func showOnServer() async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (server, _, address) = try await startStorekitServe(dataDirectory: dataDirectory)
        defer { server.terminate() }
        let remote = ["--server", address, "--tenant", "show"]
        let bought = try #require(try jsonOutput(try await storekit(["purchase", "com.example.demo.plus.monthly", "--json"] + remote)) as? [String: Any])
        let id = try #require(bought["transactionId"] as? String)

        let shown = try #require(try jsonOutput(try await storekit(["tx", "show", id, "--json"] + remote)) as? [String: Any])
        #expect(shown["transactionId"] as? String == id)
        #expect((shown["signedTransaction"] as? String)?.split(separator: ".").count == 3)
        let subscription = try #require(shown["subscription"] as? [String: Any])
        #expect(subscription["originalTransactionId"] as? String == id)
        #expect(subscription["status"] as? String == "active")
        #expect(try await storekit(["tx", "show", id] + remote).output.contains("next:         renews into com.example.demo.plus.monthly at"))

        let unknown = try await storekit(["tx", "show", "2000000000000999"] + remote)
        #expect(unknown.status != 0)
        #expect(unknown.errorOutput.contains("(404)"), "\(unknown.errorOutput)")
        #expect(unknown.errorOutput.contains("2000000000000999"))
    }
}
