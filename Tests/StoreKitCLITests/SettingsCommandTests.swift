import Foundation
import Testing
import TestProcesses

/// `storekit settings` and `storekit settings set`: a running server's test switches.
@Suite("storekit settings", .limitsChildProcesses)
struct SettingsCommandTests {
    @Test("`settings set` changes a running server's switches as GET /control/settings shows; Ask to Buy purchases wait for `tx approve --server`")
    func setOnServer() async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (server, port, address) = try await startStorekitServe(dataDirectory: dataDirectory)
        defer { server.terminate() }
        let remote = ["--server", address]

        let initial = try await storekit(["settings"] + remote) // show, the default
        #expect(initial.status == 0, "\(initial.errorOutput)")
        #expect(initial.output.contains("ask to buy:             off"), "\(initial.output)")
        #expect(initial.output.contains("storefront:             USA"))

        let set = try #require(try jsonOutput(try await storekit([
            "settings", "set", "--ask-to-buy", "on", "--renewal-limit", "3", "--storefront", "FRA", "--locale", "fr_FR",
            "--failure-error-code", "2", "--billing-issues", "on", "--grace-period", "on", "--json",
        ] + remote)) as? [String: Any])
        let seen = try await httpGet(URL(string: "http://127.0.0.1:\(port)/control/settings")!)
        let served = try #require(try JSONSerialization.jsonObject(with: seen.body) as? [String: Any])
        for settings in [set, served] {
            #expect(settings["askToBuyEnabled"] as? Bool == true)
            #expect(settings["renewalLimit"] as? Int == 3)
            #expect(settings["storefront"] as? String == "FRA")
            #expect(settings["locale"] as? String == "fr_FR")
            #expect(settings["failureErrorCode"] as? Int == 2)
            #expect(settings["renewalBillingIssuesEnabled"] as? Bool == true)
            #expect(settings["billingGracePeriodEnabled"] as? Bool == true)
            #expect(settings["interruptedPurchasesEnabled"] as? Bool == false, "switches not given stay")
            #expect(settings["failTransactionsEnabled"] as? Bool == false)
        }
        let shown = try #require(try jsonOutput(try await storekit(["settings", "show", "--json"] + remote)) as? [String: Any])
        #expect(shown["askToBuyEnabled"] as? Bool == true)
        let otherTenant = try #require(try jsonOutput(try await storekit(["settings", "show", "--json", "--tenant", "other"] + remote)) as? [String: Any])
        #expect(otherTenant["askToBuyEnabled"] as? Bool == false, "a tenant's settings are its own")

        // Ask to Buy is on: purchases wait, and the transaction commands act on them through the server.
        let waiting = try #require(try jsonOutput(try await storekit(["purchase", "com.example.demo.premium", "--json"] + remote)) as? [String: Any])
        let premium = try #require(waiting["transactionId"] as? String)
        #expect(waiting["state"] as? String == "pending-approval")
        #expect(waiting["storefront"] as? String == "FRA")
        let approved = try await storekit(["tx", "approve", premium] + remote)
        #expect(approved.status == 0, "\(approved.errorOutput)")
        #expect(approved.output.contains("\(premium)  com.example.demo.premium  purchased"), "\(approved.output)")
        let shownTransaction = try #require(try jsonOutput(try await storekit(["tx", "show", premium, "--json"] + remote)) as? [String: Any])
        #expect(shownTransaction["state"] as? String == "purchased")
        #expect((shownTransaction["signedTransaction"] as? String)?.split(separator: ".").count == 3)
        let coins = try #require(try jsonOutput(try await storekit(["purchase", "com.example.demo.coins.100", "--json"] + remote)) as? [String: Any])
        let coinsID = try #require(coins["transactionId"] as? String)
        #expect(try await storekit(["tx", "decline", coinsID] + remote).output.contains("declined"))
        #expect(try await storekit(["tx", "list", "--state", "declined"] + remote).output.contains(coinsID))

        let reset = try await storekit(["settings", "set", "--ask-to-buy", "off", "--renewal-limit", "0"] + remote)
        #expect(reset.status == 0, "\(reset.errorOutput)")
        #expect(reset.output.contains("ask to buy:             off"))
        #expect(reset.output.contains("renewal limit:          none"), "0 removes the limit: \(reset.output)")
        let bought = try #require(try jsonOutput(try await storekit(["purchase", "com.example.demo.theme.dark", "--json"] + remote)) as? [String: Any])
        #expect(bought["state"] as? String == "purchased")

        let unknownStorefront = try await storekit(["settings", "set", "--storefront", "XYZ"] + remote)
        #expect(unknownStorefront.status != 0)
        #expect(unknownStorefront.errorOutput.contains("Unknown storefront \"XYZ\""), "\(unknownStorefront.errorOutput)")
    }

    @Test("Without --server, `settings` says settings belong to a running store and how to reach one")
    func needsServer() async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        for arguments in [["settings"], ["settings", "show"], ["settings", "set", "--ask-to-buy", "on"]] {
            let run = try await storekit(arguments + ["--data-dir", dataDirectory.path])
            #expect(run.status != 0)
            #expect(run.errorOutput.contains("Settings belong to a running store"), "\(arguments): \(run.errorOutput)")
            #expect(run.errorOutput.contains("--server URL"))
        }
        #expect(!FileManager.default.fileExists(atPath: dataDirectory.path), "the data directory is not touched")
    }

    @Test("`settings set` refuses nothing to change and values it cannot send, before asking the server")
    func badValues() async throws {
        // Nothing listens here: each refusal comes before any request.
        let remote = ["--server", "http://127.0.0.1:9"]
        let cases: [([String], String)] = [
            ([], "Nothing to change: give at least one setting"),
            (["--ask-to-buy", "maybe"], "on"),
            (["--renewal-limit=-2"], "--renewal-limit -2 is negative"),
            (["--failure-error-code", "x"], "failure-error-code"),
        ]
        for (arguments, message) in cases {
            let run = try await storekit(["settings", "set"] + arguments + remote)
            #expect(run.status != 0)
            #expect(run.errorOutput.contains(message), "\(arguments): \(run.errorOutput)")
        }
    }
}
