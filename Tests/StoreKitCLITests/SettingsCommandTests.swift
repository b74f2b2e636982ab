import Foundation
import Testing
import TestProcesses

/// `storekit settings` and `storekit settings set`: a store's test switches, on a running server and in a data directory.
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

    @Test("Without --server, `settings set` stores the change in the data directory: `settings` shows it over the configuration's, and `tenants reset` goes back to the configuration's")
    func setInDataDirectory() async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let local = ["--data-dir", dataDirectory.path, "--config", demoConfiguration]

        let initial = try await storekit(["settings"] + local)
        #expect(initial.status == 0, "\(initial.errorOutput)")
        #expect(initial.output.contains("ask to buy:             off"), "\(initial.output)")

        let set = try await storekit(["settings", "set", "--ask-to-buy", "on", "--storefront", "FRA"] + local)
        #expect(set.status == 0, "\(set.errorOutput)")
        #expect(set.output.contains("now has:"), "\(set.output)")
        #expect(set.output.contains("ask to buy:             on"), "\(set.output)")

        // Another process, with the same configuration or none: the stored settings win over the file's.
        for arguments in [local, ["--data-dir", dataDirectory.path]] {
            let shown = try await storekit(["settings", "show", "--json"] + arguments)
            #expect(shown.status == 0, "\(shown.errorOutput)")
            let settings = try #require(try JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any])
            #expect(settings["askToBuyEnabled"] as? Bool == true, "\(arguments)")
            #expect(settings["storefront"] as? String == "FRA")
            #expect(settings["interruptedPurchasesEnabled"] as? Bool == false, "switches not given stay")
        }
        let otherTenant = try await storekit(["settings", "--tenant", "qa-1"] + local)
        #expect(otherTenant.output.contains("ask to buy:             off"), "a tenant's settings are its own: \(otherTenant.output)")

        // A purchase in the data directory waits for approval.
        let bought = try await storekit(["purchase", "com.example.demo.premium", "--json"] + local)
        #expect(bought.status == 0, "\(bought.errorOutput)")
        #expect(bought.output.contains("pending-approval"), "\(bought.output)")

        let reset = try await storekit(["tenants", "reset", "default", "--data-dir", dataDirectory.path])
        #expect(reset.status == 0, "\(reset.errorOutput)")
        let afterReset = try await storekit(["settings"] + local)
        #expect(afterReset.output.contains("ask to buy:             off"), "a reset goes back to the configuration's: \(afterReset.output)")
        #expect(afterReset.output.contains("storefront:             USA"), "\(afterReset.output)")

        let withServer = try await storekit(["settings", "--server", "http://127.0.0.1:9", "--config", demoConfiguration])
        #expect(withServer.status != 0)
        #expect(withServer.errorOutput.contains("--config is for a store opened here"), "\(withServer.errorOutput)")
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
