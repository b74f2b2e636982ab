import AppStorePostgres
import Foundation
import TestProcesses
import Testing

/// `storekit bench http` against a real `storekit serve` on loopback: each workload's requests are answered, and the
/// report gives the count, the rate and the latency percentiles. (Speed targets live in the benchmark's own runs,
/// never in tests.)
@Suite("storekit bench http", .limitsChildProcesses)
struct BenchCommandTests {
    @Test("Each workload drives a running server and reports requests, failures and latency percentiles", arguments: ["purchases", "transaction-info", "verify-receipt"])
    func workloads(workload: String) async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let issuer = "bench-issuer"
        let keyID = try await storekit(["keys", "create", "--issuer", issuer, "--out", dataDirectory.path, "--data-dir", dataDirectory.path])
            .output.trimmingCharacters(in: .whitespacesAndNewlines)
        let (server, _, address) = try await startStorekitServe(dataDirectory: dataDirectory)
        defer { server.terminate() }

        // No --seconds: --requests decides (at 20/s, the 60 requests of verify-receipt take longer than the 2 s the
        // other benchmarks default to).
        var arguments = ["bench", "http", "--server", address, "--workload", workload, "--requests", "60"]
        if workload == "transaction-info" {
            arguments += ["--key-file", dataDirectory.appendingPathComponent("SubscriptionKey_\(keyID).p8").path, "--key-id", keyID, "--issuer", issuer]
        }
        if workload == "verify-receipt" { arguments += ["--rate", "20"] }
        let run = try await storekit(arguments)
        #expect(run.status == 0, "\(run.errorOutput)")
        #expect(run.output.contains("60 requests in "), "\(run.output)")
        #expect(run.output.contains("; 0 failed"), "\(run.output)")
        #expect(run.output.contains("latency ms: p50 "), "\(run.output)")
        if workload == "purchases" {
            let listed = try await storekit(["tx", "list", "--server", address, "--json"])
            let purchases = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
            #expect(purchases.count == 60, "every request bought once")
        }
    }

    @Test("tenants makes every tenant with its catalog and a purchase in each, deletes them, and reports the rates, the server's memory and descriptors per tenant, and what memory and disk deleting gives back")
    func tenantsWorkload() async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (server, port, address) = try await startStorekitServe(dataDirectory: dataDirectory)
        defer { server.terminate() }

        // No --server-pid: the benchmark finds the server listening on the port.
        let run = try await storekit([
            "bench", "http", "--server", address, "--workload", "tenants", "--tenants", "20", "--connections", "4",
            "--config", demoConfiguration,
        ])
        #expect(run.status == 0, "\(run.errorOutput)")
        let output = run.output
        #expect(output.contains("20 tenants in "), "\(output)")
        #expect(output.contains(" tenants/s; 0 failed"), "the rate line, with every tenant made: \(output)")
        #expect(output.contains("first purchase in each tenant"), "\(output)")
        #expect(output.contains(try Regex(#"20 requests in [0-9.]+ s = [0-9]+/s; 0 failed"#)), "every purchase succeeded: \(output)")
        #expect(output.split(separator: "\n").filter { $0.contains("latency ms: p50 ") }.count == 3, "the three phases' percentiles: \(output)")
        #expect(output.contains(try Regex(#"delete \(DELETE /control/tenants/\{name\}\):\n +20 tenants in [0-9.]+ s = [0-9]+ tenants/s; 0 failed"#)), "\(output)")
        #expect(output.contains("server process \(server.processIdentifier):"), "the server found from its port \(port): \(output)")
        for moment in ["before:", "after creating:", "after purchases:", "after deleting:"] {
                #expect(output.contains(try Regex(moment + #" +[0-9]+\.[0-9] MB resident, [0-9]+ open descriptors, [0-9]+ threads, [0-9]+\.[0-9] MB of databases"#)), "\(moment) \(output)")
        }
        // The server's database is measured: it is not empty once tenants have their catalogs.
        #expect(output.contains(try Regex(#"after purchases: .* [0-9]*[1-9][0-9]*\.[0-9] MB of databases|after purchases: .* 0\.[1-9] MB of databases"#)), "\(output)")
        #expect(output.contains(try Regex(#"of the tenants' memory and -?[0-9]+% of their databases' growth still held"#)), "\(output)")
        #expect(output.contains(try Regex(#"per tenant: -?[0-9]+\.[0-9] KB resident, -?[0-9]+\.[0-9]{2} open descriptors, -?[0-9]+\.[0-9]{3} threads"#)), "\(output)")
        // Every tenant was deleted.
        let afterRun = try await storekit(["tenants", "list", "--server", address, "--json"])
        #expect((try JSONSerialization.jsonObject(with: Data(afterRun.output.utf8)) as? [Any])?.isEmpty == true, "\(afterRun.output)")

        // Kept: every tenant was made, selling its own catalog, and its purchase is in its own store.
        let kept = try await storekit([
            "bench", "http", "--server", address, "--workload", "tenants", "--tenants", "20", "--connections", "4",
            "--config", demoConfiguration, "--keep-tenants",
        ])
        #expect(kept.status == 0, "\(kept.errorOutput)")
        #expect(!kept.output.contains("delete ("), "\(kept.output)")
        let listed = try await storekit(["tenants", "list", "--server", address, "--json"])
        let tenants = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        let made = tenants.compactMap { $0["name"] as? String }.filter { $0.hasPrefix("bench-") }
        #expect(made.count == 20, "\(made)")
        #expect(tenants.filter { ($0["name"] as? String)?.hasPrefix("bench-") == true }.allSatisfy { $0["hasOwnCatalog"] as? Bool == true })
        let last = try #require(made.first { $0.hasSuffix("-19") }, "\(made)")
        let transactions = try await storekit(["tx", "list", "--server", address, "--tenant", last, "--json"])
        let purchases = try #require(try JSONSerialization.jsonObject(with: Data(transactions.output.utf8)) as? [[String: Any]], "\(transactions.errorOutput)")
        #expect(purchases.count == 1, "one purchase in \(last)")
        #expect(purchases.first?["productId"] as? String == "com.example.demo.coins.100")
        let own = try await storekit(["tx", "list", "--server", address, "--json"])
        #expect((try JSONSerialization.jsonObject(with: Data(own.output.utf8)) as? [Any])?.isEmpty == true, "none in the server's own store")

        // With --server-pid named, the same figures, and the idle ones with --idle; run again, new names: the first
        // run's tenants are not taken.
        let again = try await storekit([
            "bench", "http", "--server", address, "--workload", "tenants", "--tenants", "3", "--server-pid", String(server.processIdentifier),
            "--idle", "0.1",
        ])
        #expect(again.status == 0, "\(again.errorOutput)")
        #expect(again.output.contains("3 tenants in "), "\(again.output)")
        #expect(again.output.contains(" tenants/s; 0 failed"), "\(again.output)")
        #expect(again.output.contains(try Regex(#"idle 0\.1 s later: +[0-9]+\.[0-9] MB resident"#)), "\(again.output)")
        #expect(again.output.contains("per tenant idle: "), "\(again.output)")
    }

    @Test("purchases over tenants buys in each tenant in turn, each made first, and none in the server's own store")
    func purchasesOverTenants() async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (server, _, address) = try await startStorekitServe(dataDirectory: dataDirectory)
        defer { server.terminate() }

        let run = try await storekit(["bench", "http", "--server", address, "--workload", "purchases", "--tenants", "5", "--requests", "60", "--connections", "4"])
        #expect(run.status == 0, "\(run.errorOutput)")
        #expect(run.output.contains("over 5 tenants bench-0…bench-4"), "\(run.output)")
        #expect(run.output.contains("warm-up, one purchase in each tenant"), "\(run.output)")
        #expect(run.output.contains("5 requests in "), "the warm-up: \(run.output)")
        #expect(run.output.contains("60 requests in "), "\(run.output)")
        let failures = run.output.split(separator: "\n").filter { $0.contains(" failed") }
        #expect(failures.count == 2 && failures.allSatisfy { $0.contains("; 0 failed") }, "the warm-up and the load, none failed: \(run.output)")
        for tenant in ["bench-0", "bench-4"] {
            let listed = try await storekit(["tx", "list", "--server", address, "--tenant", tenant, "--json"])
            let purchases = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]], "\(listed.errorOutput)")
            #expect(purchases.count == 13, "one in the warm-up and 60 / 5 in the load, in \(tenant)")
        }
        let own = try await storekit(["tx", "list", "--server", address, "--json"])
        #expect((try JSONSerialization.jsonObject(with: Data(own.output.utf8)) as? [Any])?.isEmpty == true, "none in the server's own store")
    }

    @Test(
        "purchases on PostgreSQL with --pgbench runs pgbench's TPC-B-like script on the same database before and after them, prints both rates and the purchases' share of their mean, and drops its tables",
        .enabled(if: PostgresTestDatabase.isConfigured, "OPENSTOREKIT_TEST_POSTGRES_URL is unset; `export OPENSTOREKIT_TEST_POSTGRES_URL=$(bash .ci/postgres)` runs it")
    )
    func pgbenchReference() async throws {
        let configuration = try PostgresTestDatabase.freshConfiguration()
        defer { try? PostgresTestDatabase.dropSchema(of: configuration) }
        let database = PostgresTestDatabase.url(of: configuration)
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let server = try ChildProcess(try ChildProcess.builtExecutable("storekit"), [
            "serve", "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--database", database, "--port", "0",
        ])
        defer { server.terminate() }
        let line = try await server.waitForLine(containing: "http://127.0.0.1:")
        let address = try #require(line.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })

        let run = try await storekit([
            "bench", "http", "--server", address, "--workload", "purchases", "--requests", "40", "--connections", "4",
            "--pgbench", database, "--pgbench-clients", "2",
        ])
        #expect(run.status == 0, "\(run.errorOutput)")
        #expect(run.output.contains("40 requests in "), "\(run.output)")
        let reference = try #require(run.output.split(separator: "\n").first { $0.contains("pgbench tpcb-like on the same database (scale 1, 2 clients, 20 transactions each, fsync=") })
        // "…): 1234 tps, the mean of 1200 just before the purchases and 1268 just after"
        let rates = try #require(reference.split(separator: "): ").last).split(separator: " ").compactMap { Double($0) }
        #expect(rates.count == 3 && rates.allSatisfy { $0 > 0 }, "the mean, the rate before and the rate after: \(reference)")
        if rates.count == 3 { #expect(abs(rates[0] - (rates[1] + rates[2]) / 2) <= 1, "\(reference)") }
        #expect(run.output.contains("% of pgbench's rate"), "\(run.output)")
        // pgbench's tables went with the run; the store's stayed, with its purchases.
        let tables = try await ChildProcess.tool("psql", ["-X", "-A", "-t", "-c", "SELECT string_agg(table_name, ',') FROM information_schema.tables WHERE table_schema = current_schema() AND table_name LIKE 'pgbench%'", database]).finished().output
        #expect(tables.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "pgbench's tables are left: \(tables)")
        let listed = try await storekit(["tx", "list", "--server", address, "--json"])
        #expect((try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [Any])?.count == 40)

        let refused = try await storekit(["bench", "http", "--server", address, "--workload", "verify-receipt", "--pgbench", database])
        #expect(refused.status != 0 && refused.errorOutput.contains("--pgbench is for --workload purchases"), "\(refused.errorOutput)")
    }

    @Test("renewals reports the year's renewals, SQLite's own copy of the rows they wrote into a fresh store, and the one as a multiple of the other")
    func renewals() async throws {
        let run = try await storekit(["bench", "renewals", "--subscribers", "20"])
        #expect(run.status == 0, "\(run.errorOutput)")
        #expect(run.output.contains("renewals-one-subscriber: 120 renewals over 10 years in "), "\(run.output)")
        #expect(run.output.contains("renewals-setup: 20 subscriptions bought in "), "\(run.output)")
        #expect(run.output.contains(try Regex(#"renewals-many-subscribers: 240 renewals of 20 subscribers over 1 year in [0-9.]+ s = [0-9]+/s \(SQLite; [0-9.]+ s of CPU\)"#)), "\(run.output)")
        // Every renewal's transaction and notification is in the copy: the floor counts what it copied.
        #expect(
            run.output.contains(try Regex(#"renewals-floor: 240 transaction rows and 240 notification rows inserted in one transaction in [0-9.]+ s \(SQLite copying the renewals' rows into a fresh store\); renewals took [0-9.]+x that"#)),
            "\(run.output)"
        )
        #expect(!run.output.contains("PostgreSQL"), "\(run.output)")
    }

    @Test(
        "renewals with --database runs the same year on PostgreSQL in a schema of its own, reports it as a multiple of the SQLite time, and drops the schema",
        .enabled(if: PostgresTestDatabase.isConfigured, "OPENSTOREKIT_TEST_POSTGRES_URL is unset; `export OPENSTOREKIT_TEST_POSTGRES_URL=$(bash .ci/postgres)` runs it")
    )
    func renewalsOnPostgres() async throws {
        let database = try #require(PostgresTestDatabase.url)
        let run = try await storekit(["bench", "renewals", "--subscribers", "20", "--database", database])
        #expect(run.status == 0, "\(run.errorOutput)")
        #expect(run.output.contains("renewals-setup: 20 subscriptions bought in "), "\(run.output)")
        #expect(run.output.contains(try Regex(#"renewals-many-subscribers: 240 renewals of 20 subscribers over 1 year in [0-9.]+ s = [0-9]+/s \(PostgreSQL; [0-9.]+ s of CPU\)"#)), "\(run.output)")
        let line = try #require(run.output.split(separator: "\n").first { $0.hasPrefix("renewals-postgres: the year took ") }, "\(run.output)")
        let schema = try #require(line.firstMatch(of: /schema (bench_renewals_[0-9a-f]+), dropped/)?.1)
        let left = try await ChildProcess.tool("psql", ["-X", "-A", "-t", "-c", "SELECT count(*) FROM information_schema.schemata WHERE schema_name = '\(schema)'", database]).finished().output
        #expect(left.trimmingCharacters(in: .whitespacesAndNewlines) == "0")

        let elsewhere = try await storekit(["bench", "jws-sign", "--database", database])
        #expect(elsewhere.status != 0 && elsewhere.errorOutput.contains("--database is for the renewals benchmark"), "\(elsewhere.errorOutput)")
        let notPostgres = try await storekit(["bench", "renewals", "--database", "mysql://localhost/store"])
        #expect(notPostgres.status != 0 && notPostgres.errorOutput.contains("is not a postgres:// URL"), "\(notPostgres.errorOutput)")
    }

    @Test("transaction-info without an API key, and a server that is not there, are refused with what to do")
    func refusals() async throws {
        let noKey = try await storekit(["bench", "http", "--server", "http://127.0.0.1:9", "--workload", "transaction-info"])
        #expect(noKey.status != 0)
        #expect(noKey.errorOutput.contains("--key-file, --key-id and --issuer"), "\(noKey.errorOutput)")
        let badWorkload = try await storekit(["bench", "http", "--workload", "everything"])
        #expect(badWorkload.status != 0)
        #expect(badWorkload.errorOutput.contains("purchases, transaction-info, verify-receipt, tenants"), "\(badWorkload.errorOutput)")
        let tenantsElsewhere = try await storekit(["bench", "http", "--workload", "verify-receipt", "--tenants", "3"])
        #expect(tenantsElsewhere.status != 0)
        #expect(tenantsElsewhere.errorOutput.contains("--tenants is for --workload purchases or tenants"), "\(tenantsElsewhere.errorOutput)")
        let noServer = try await storekit(["bench", "http", "--server", "http://127.0.0.1:9", "--requests", "5"])
        #expect(noServer.status != 0)
        #expect(noServer.errorOutput.contains("Cannot connect to 127.0.0.1:9"), "\(noServer.errorOutput)")
        #expect(noServer.errorOutput.contains("Is `storekit serve` running there?"), "\(noServer.errorOutput)")
    }

    @Test("Requests the server refuses are counted as failed, with the first refusal shown, in both loops", arguments: [[], ["--rate", "50"]])
    func refusedRequestsAreFailures(pacing: [String]) async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (server, _, address) = try await startStorekitServe(dataDirectory: dataDirectory)
        defer { server.terminate() }
        let run = try await storekit(["bench", "http", "--server", address, "--product", "no.such.product", "--requests", "20", "--connections", "3"] + pacing)
        #expect(run.status == 0, "\(run.errorOutput)")
        #expect(run.output.contains("20 requests in "), "\(run.output)")
        #expect(run.output.contains("; 20 failed"), "\(run.output)")
        #expect(run.output.contains("first failure: HTTP 404"), "\(run.output)")
        #expect(run.output.contains("no.such.product"), "the refusal's message is shown: \(run.output)")
    }
}
