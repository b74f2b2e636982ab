import AppStoreEngine
import AppStoreSQLite
import Foundation
import Testing
import TestProcesses

/// `storekit clock`: each tenant's persisted clock, moved from the terminal.
@Suite("storekit clock", .limitsChildProcesses)
struct ClockCommandTests {
    let dataDirectory = temporaryDataDirectory()

    func run(_ arguments: [String]) async throws -> StorekitRun {
        try await storekit(arguments + ["--data-dir", dataDirectory.path])
    }

    func json(_ arguments: [String]) async throws -> Any {
        let run = try await run(arguments)
        #expect(run.status == 0, "\(arguments): \(run.errorOutput)")
        return try JSONSerialization.jsonObject(with: Data(run.output.utf8))
    }

    func show(tenant: String? = nil) async throws -> [String: Any] {
        try #require(try await json(["clock", "show", "--json"] + (tenant.map { ["--tenant", $0] } ?? [])) as? [String: Any])
    }

    func buyMonthly() async throws -> [String: Any] {
        try #require(try await json(["purchase", "com.example.demo.plus.monthly", "--config", demoConfiguration, "--json"]) as? [String: Any])
    }

    func renewals() async throws -> [[String: Any]] {
        try #require(try await json(["tx", "list", "--json"]) as? [[String: Any]]).filter { $0["origin"] as? String == "renewal" }
    }

    @Test("`clock advance 3mo` renews a monthly subscription three times, and later processes see the moved clock")
    func advanceRenews() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let bought = try await buyMonthly()
        let advanced = try await run(["clock", "advance", "3mo", "--config", demoConfiguration])
        #expect(advanced.status == 0, "\(advanced.errorOutput)")
        #expect(advanced.output.contains("clock moved to"))

        let renewed = try await renewals()
        #expect(renewed.count == 3)
        #expect(renewed.allSatisfy { $0["originalTransactionId"] as? String == bought["transactionId"] as? String })
        #expect(renewed.first?["purchaseDate"] as? String == bought["expiresDate"] as? String)

        let shown = try await show()
        let offset = try #require(shown["offset"] as? Double)
        #expect(offset >= 89 * 86_400 && offset <= 92 * 86_400 + 60, "three calendar months: \(offset)")
        #expect(shown["timeRate"] as? String == "realTime")
        #expect(shown["nextEventDate"] as? String == renewed.last?["expiresDate"] as? String)

        let subscriptions = try #require(try await json(["subscriptions", "--json"]) as? [[String: Any]])
        #expect(subscriptions.first?["renewals"] as? Int == 3)
        #expect(subscriptions.first?["status"] as? String == "active")
    }

    @Test("`clock advance --progress` moves in steps with a bar on standard error and ends where one move ends")
    func advanceWithProgress() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let bought = try await buyMonthly()
        let advanced = try await run(["clock", "advance", "1y", "--config", demoConfiguration, "--progress"])
        #expect(advanced.status == 0, "\(advanced.errorOutput)")
        #expect(advanced.errorOutput.contains("advancing the clock ["))
        #expect(advanced.errorOutput.hasSuffix("\n") && advanced.errorOutput.contains("] 100%"))
        #expect(advanced.output.contains("clock moved to"))

        // The same year in one move, in another store: the same renewals, on the same dates.
        let stepped = try await renewals()
        let other = ClockCommandTests()
        defer { try? FileManager.default.removeItem(at: other.dataDirectory) }
        _ = try await other.buyMonthly()
        let once = try await other.run(["clock", "advance", "1y", "--config", demoConfiguration, "--no-progress"])
        #expect(once.status == 0 && once.errorOutput.isEmpty, "\(once.errorOutput)")
        let single = try await other.renewals()
        #expect(stepped.count == 12, "a week's trial, then eleven paid months and the twelfth's start: \(stepped.count)")
        #expect(stepped.count == single.count)
        let offsets = { (rows: [[String: Any]], start: Any?) in rows.compactMap { row -> TimeInterval? in
            guard let date = (row["purchaseDate"] as? String).flatMap({ try? Date($0, strategy: .iso8601) }),
                  let first = (start as? String).flatMap({ try? Date($0, strategy: .iso8601) }) else { return nil }
            return date.timeIntervalSince(first)
        } }
        _ = bought
        #expect(offsets(stepped, stepped.first?["purchaseDate"]) == offsets(single, single.first?["purchaseDate"]))
    }

    @Test("Durations combine units; `clock set` moves to a date and the text output says where the clock is")
    func advanceAndSet() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        #expect(try await run(["clock", "advance", "1d12h"]).status == 0)
        let afterAdvance = try #require(try await show()["offset"] as? Double)
        #expect(afterAdvance >= 129_600 && afterAdvance < 129_600 + 60)

        let target = "2099-03-01T12:00:00Z"
        let set = try await run(["clock", "set", target])
        #expect(set.status == 0, "\(set.errorOutput)")
        #expect(set.output.contains("clock moved to 2099-03-01T12:00"), "\(set.output)")
        #expect(set.output.contains("No --config given"))
        #expect((try await show()["now"] as? String ?? "") >= target)

        let text = try await run(["clock", "show"])
        #expect(text.output.contains("now:"))
        #expect(text.output.contains("ahead of wall time"))
        #expect(text.output.contains("next event:  none"))
    }

    @Test("`clock set` to an earlier date fails with how to fix it and changes nothing")
    func setBackwards() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        _ = try await buyMonthly()
        #expect(try await run(["clock", "advance", "10d"]).status == 0)
        let before = try await show()
        let back = try await run(["clock", "set", "2020-01-01T00:00:00Z", "--config", demoConfiguration])
        #expect(back.status == 1)
        #expect(back.errorOutput.contains("cannot go back to 2020-01-01T00:00:00Z"), "\(back.errorOutput)")
        #expect(back.errorOutput.contains("only moves forward"))
        #expect(back.errorOutput.contains("another tenant"))
        #expect(try await show()["offset"] as? Double == before["offset"] as? Double)
        #expect(try await renewals().isEmpty)
        let notADate = try await run(["clock", "set", "next tuesday"])
        #expect(notADate.status != 0)
        #expect(notADate.errorOutput.contains("not an ISO 8601 date"))
    }

    @Test("A bad duration is refused with the units it accepts", arguments: ["3x", "mo", "1.5d", "", "10", "2w3"])
    func badDuration(text: String) async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let bad = try await run(["clock", "advance", text])
        #expect(bad.status != 0)
        #expect(bad.errorOutput.contains("y (years), mo (months), w (weeks), d (days), h (hours), m (minutes), s (seconds)"), "\(bad.errorOutput)")
    }

    @Test("Two tenants' clocks are independent")
    func tenantsAreIndependent() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        #expect(try await run(["clock", "advance", "2w", "--tenant", "ahead"]).status == 0)
        #expect(try await run(["clock", "rate", "oneRenewalEveryMinute", "--tenant", "ahead"]).status == 0)
        #expect((try await show(tenant: "ahead")["offset"] as? Double ?? 0) >= 14 * 86_400)
        let other = try await show(tenant: "behind")
        #expect(other["offset"] as? Double == 0)
        #expect(other["timeRate"] as? String == "realTime")
        #expect(other["timeRateSource"] as? String == "default")
    }

    @Test("`clock rate` stores a rate that later purchases use, and --clear goes back to the configuration's")
    func rateOverride() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let chosen = try await run(["clock", "rate", "oneRenewalEveryTenSeconds"])
        #expect(chosen.status == 0, "\(chosen.errorOutput)")
        let shown = try await show()
        #expect(shown["timeRate"] as? String == "oneRenewalEveryTenSeconds")
        #expect(shown["timeRateSource"] as? String == "store")

        let bought = try await buyMonthly()
        let formatter = ISO8601DateFormatter()
        let purchased = try #require((bought["purchaseDate"] as? String).flatMap(formatter.date(from:)))
        let expires = try #require((bought["expiresDate"] as? String).flatMap(formatter.date(from:)))
        #expect(expires.timeIntervalSince(purchased) == 10)

        // The store's clock runs on from wall time between commands: count the renewals due by the clock as read just
        // before and just after listing them, not a fixed number that a slow machine would overshoot.
        #expect(try await run(["clock", "advance", "35s", "--config", demoConfiguration]).status == 0)
        func periodsSincePurchase() async throws -> Int {
            let now = try #require((try await show()["now"] as? String).flatMap(formatter.date(from:)))
            return Int(now.timeIntervalSince(purchased) / 10)
        }
        let dueBefore = try await periodsSincePurchase()
        let renewed = try await renewals().count
        let dueAfter = try await periodsSincePurchase()
        #expect(dueBefore >= 3, "the 35 s advance passed three period ends")
        // Both dates are shown to the second, so the count of periods read from them may be one too many.
        #expect((dueBefore - 1...dueAfter).contains(renewed), "renewed \(renewed) times; \(dueBefore)...\(dueAfter) were due, to the second")

        #expect(try await run(["clock", "rate", "--clear"]).status == 0)
        #expect(try await show()["timeRateSource"] as? String == "default")
        let unknown = try await run(["clock", "rate", "ludicrousSpeed"])
        #expect(unknown.status != 0)
        #expect(unknown.errorOutput.contains("oneRenewalEveryTwoSeconds"), "\(unknown.errorOutput)")
    }

    @Test("`clock --help` and its subcommands' help teach with examples; `rate --help` lists every rate")
    func help() async throws {
        for command in [["clock"], ["clock", "show"], ["clock", "advance"], ["clock", "set"], ["clock", "rate"]] {
            let help = try await storekit(command + ["--help"])
            #expect(help.status == 0)
            #expect(help.output.contains("Example"), "\(command)")
            #expect(help.output.contains("storekit \(command.joined(separator: " "))"), "\(command)")
        }
        let rate = try await storekit(["clock", "rate", "--help"])
        for name in ["realTime", "oneHourIsOneDay", "monthlyRenewalEveryThirtySeconds", "oneRenewalEveryTenSeconds", "oneRenewalEveryTwoSeconds"] {
            #expect(rate.output.contains(name), "\(name)")
        }
    }

    @Test("A store left closed for three virtual months shows three renewals when opened, even by two processes at once", arguments: 1...3)
    func closedStoreCatchesUpOnce(round: Int) async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let bought = try await buyMonthly()
        // Nobody runs the store while its clock moves: the state is written directly, without applying events.
        let storage = try SQLiteStorage(url: dataDirectory.appendingPathComponent("store.sqlite"))
        try await storage.transaction(tenant: StoreDefaults.tenant) { transaction in
            try transaction.write(.saveClockState(StoreClockState(offset: 93 * 86_400)))
        }
        #expect(try await renewals().isEmpty, "`storekit tx list` without --config leaves due renewals alone")

        let opening = ["subscriptions", "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--json"]
        let runs = try await storekitConcurrently([opening, opening])
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.errorOutput))")
        for run in runs {
            let listed = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]])
            #expect(listed.first?["renewals"] as? Int == 3)
        }
        let renewed = try await renewals()
        #expect(renewed.count == 3)
        #expect(Set(renewed.compactMap { $0["purchaseDate"] as? String }).count == 3)
        #expect(renewed.allSatisfy { $0["originalTransactionId"] as? String == bought["transactionId"] as? String })
    }
}
