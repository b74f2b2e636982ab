import Foundation
import Testing
import TestProcesses

/// `storekit family join|leave`: Family Sharing, on the data directory's store and on a running server.
@Suite("storekit family", .limitsChildProcesses)
struct FamilyCommandTests {
    let dataDirectory = temporaryDataDirectory()

    /// The identifiers and origins of an account's transactions, as `tx list --account --json` prints them, with
    /// whether each is revoked.
    func transactions(of account: String, _ place: [String]) async throws -> [(id: String, origin: String, revoked: Bool)] {
        let listed = try #require(try jsonOutput(try await storekit(["tx", "list", "--account", account, "--json"] + place)) as? [[String: Any]])
        return listed.map { ($0["transactionId"] as? String ?? "", $0["origin"] as? String ?? "", $0["revocationDate"] as? String != nil) }
    }

    /// Runs join and leave on the store `place` names (the data directory, or --server), giving `products` (--config)
    /// to the commands that change it: the family's shareable purchase reaches the member that joins, and leaving
    /// revokes it.
    func joinAndLeave(_ place: [String], products: [String]) async throws {
        let change = place + products
        let bought = try #require(try jsonOutput(try await storekit(["purchase", "com.example.demo.premium", "--account", "alice", "--json"] + change)) as? [String: Any])
        let premium = try #require(bought["transactionId"] as? String)
        _ = try #require(try jsonOutput(try await storekit(["purchase", "com.example.demo.coins.100", "--account", "alice", "--json"] + change)) as? [String: Any])

        let first = try await storekit(["family", "join", "alice", "smiths"] + change)
        #expect(first.status == 0, "\(first.errorOutput)")
        #expect(first.output.contains(#"alice is in family "smiths"; nothing to share"#), "\(first.output)")
        #expect(try await transactions(of: "bob", place).isEmpty)

        let joined = try #require(try jsonOutput(try await storekit(["family", "join", "bob", "smiths", "--json"] + change)) as? [String: Any])
        #expect(joined["account"] as? String == "bob")
        #expect(joined["family"] as? String == "smiths")
        let shared = try #require(joined["shared"] as? [[String: Any]])
        #expect(shared.count == 1, "the consumable is not shared: \(shared)")
        let share = try #require(shared.first)
        let shareID = try #require(share["transactionId"] as? String)
        #expect(share["originalTransactionId"] as? String == premium)
        #expect(share["account"] as? String == "bob")
        #expect(share["origin"] as? String == "familyShare")
        #expect(share["amountCharged"] as? String == "0")
        #expect((share["signedTransaction"] as? String)?.split(separator: ".").count == 3)

        let bobs = try await transactions(of: "bob", place)
        #expect(bobs.map(\.id) == [shareID])
        #expect(bobs.first?.origin == "familyShare")
        #expect(bobs.first?.revoked == false)
        let again = try await storekit(["family", "join", "bob", "smiths"] + change)
        #expect(again.output.contains("nothing to share"), "joining the same family twice shares nothing twice: \(again.output)")

        let left = try await storekit(["family", "leave", "bob"] + change)
        #expect(left.status == 0, "\(left.errorOutput)")
        #expect(left.output.contains("bob is in no family now; revoked 1 transaction:"), "\(left.output)")
        #expect(left.output.contains("\(shareID)  com.example.demo.premium  purchased"), "\(left.output)")
        #expect(left.output.contains("(familyShare of \(premium))  revoked 20"), "a revocation that is no refund says so: \(left.output)")
        #expect(try await transactions(of: "bob", place).map(\.revoked) == [true])
        #expect(try await transactions(of: "alice", place).allSatisfy { !$0.revoked }, "the buyer keeps the purchase")

        let revokedNotice = try #require(try jsonOutput(try await storekit(["notifications", "list", "--json"] + change)) as? [[String: Any]])
            .last { $0["transactionId"] as? String == shareID }
        #expect(revokedNotice?["notificationType"] as? String == "REVOKE")

        let leftAgain = try #require(try jsonOutput(try await storekit(["family", "leave", "bob", "--json"] + change)) as? [String: Any])
        #expect((leftAgain["revoked"] as? [Any])?.isEmpty == true, "an account in no family has nothing to revoke")
    }

    @Test("`family join` shares the family's shareable purchases in the data directory; `tx list --account` shows them; `leave` revokes them")
    func inDataDirectory() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        try await joinAndLeave(["--data-dir", dataDirectory.path], products: ["--config", demoConfiguration])
    }

    @Test("`family join` and `leave` act on a running server with --server, as its control API shows")
    func onServer() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (server, port, address) = try await startStorekitServe(dataDirectory: dataDirectory)
        defer { server.terminate() }
        let remote = ["--server", address, "--tenant", "family-1"]
        try await joinAndLeave(remote, products: [])

        let seen = try await httpGet(URL(string: "http://127.0.0.1:\(port)/t/family-1/control/transactions?account=bob")!)
        let bobs = try #require(try JSONSerialization.jsonObject(with: seen.body) as? [[String: Any]])
        #expect(bobs.map { $0["origin"] as? String } == ["familyShare"])
        #expect(bobs.first?["revocationDate"] as? String != nil)
        let otherTenant = try #require(try jsonOutput(try await storekit(["tx", "list", "--json", "--server", address])) as? [[String: Any]])
        #expect(otherTenant.isEmpty, "the server's own store saw none of it")
    }

    @Test("`family` refuses what it cannot do, saying what to give instead")
    func mistakes() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let noConfig = try await storekit(["family", "join", "bob", "smiths", "--data-dir", dataDirectory.path])
        #expect(noConfig.status != 0)
        #expect(noConfig.errorOutput.contains("Missing --config: the store in the data directory needs the .storekit file"), "\(noConfig.errorOutput)")
        #expect(noConfig.errorOutput.contains("--server URL"))
        #expect(!FileManager.default.fileExists(atPath: dataDirectory.path), "nothing was opened")

        let emptyFamily = try await storekit(["family", "join", "bob", "", "--config", demoConfiguration, "--data-dir", dataDirectory.path])
        #expect(emptyFamily.status != 0)
        #expect(emptyFamily.errorOutput.contains("The family is empty. Name the family to join"), "\(emptyFamily.errorOutput)")

        // Nothing listens here: a name the control API's path cannot carry is refused before any request.
        let remote = ["--server", "http://127.0.0.1:9"]
        let spacedAccount = try await storekit(["family", "leave", "bob smith"] + remote)
        #expect(spacedAccount.status == 1)
        #expect(spacedAccount.errorOutput.contains(#"The account "bob smith" cannot be written in the control API's path (DELETE /control/families/members/{account})"#), "\(spacedAccount.errorOutput)")
        let slashedFamily = try await storekit(["family", "join", "bob", "smiths/jones"] + remote)
        #expect(slashedFamily.errorOutput.contains(#"The family "smiths/jones" cannot be written"#), "\(slashedFamily.errorOutput)")
        #expect(slashedFamily.errorOutput.contains("or act on the data directory's store (without --server)"))
        let unreachable = try await storekit(["family", "join", "bob", "smiths"] + remote)
        #expect(unreachable.status == 1)
        #expect(unreachable.errorOutput.contains("Cannot reach the server at http://127.0.0.1:9/"), "\(unreachable.errorOutput)")
        #expect(!unreachable.errorOutput.contains("Usage:"), "a failure, not a mistake in the command line")
    }
}
