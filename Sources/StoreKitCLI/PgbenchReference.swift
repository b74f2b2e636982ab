import Foundation

/// `storekit bench http --workload purchases --pgbench URL`: PostgreSQL's own limit on the server's database, measured
/// in the same run as the store's purchases, so their rate reads as a share of what the cluster and the machine commit.
///
/// It runs pgbench's built-in TPC-B-like script (`pgbench -b tpcb-like`) at scale 1 — one branch row that every
/// transaction updates, as every purchase of one tenant takes that tenant's row lock — with as many clients as the
/// server's connection pool has, then drops pgbench's tables. pgbench and psql come with PostgreSQL's client package.
struct PgbenchReference: Sendable {
    /// The server's database: a `postgres://` URL, which pgbench and psql read as libpq does (`options` included, so a
    /// `search_path` puts pgbench's tables in that schema).
    let databaseURL: String
    /// pgbench's clients: by default the storage's pool size (8).
    let clients: Int
    /// How many transactions pgbench commits in all, spread over the clients: as many as the purchases were.
    ///
    /// A count rather than pgbench's `-T` duration: pgbench ends a timed run on `SIGALRM`, which a program started from
    /// a thread of Swift's runtime inherits blocked, and the run would never end.
    let transactions: Int

    /// What pgbench measured.
    struct Measurement: Sendable {
        /// Transactions per second, without the time to connect.
        var transactionsPerSecond: Double
        /// The cluster's `fsync` setting (`on`, `off`), or `unknown` when psql could not say.
        var fsync: String
    }

    /// Sets pgbench's tables up, runs the script, and drops the tables again, whatever happened.
    ///
    /// - Throws: `CommandFailure` naming the step and pgbench's own message when pgbench is missing or a step fails.
    func measure() async throws -> Measurement {
        let pgbench = try Self.tool("pgbench")
        let fsync = (try? await Self.run(Self.tool("psql"), ["-X", "-A", "-t", "-c", "SHOW fsync", databaseURL]))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        _ = try await Self.run(pgbench, ["-i", "-q", "-s", "1", databaseURL], step: "setting pgbench's tables up (pgbench -i)")
        let output: String
        do {
            output = try await Self.run(
                pgbench, ["-n", "-b", "tpcb-like", "-c", "\(clients)", "-j", "\(min(clients, 2))", "-t", "\(transactionsPerClient)", databaseURL],
                step: "running pgbench's TPC-B-like script"
            )
        } catch {
            _ = try? await Self.run(pgbench, ["-i", "-I", "d", databaseURL])
            throw error
        }
        _ = try await Self.run(pgbench, ["-i", "-I", "d", databaseURL], step: "dropping pgbench's tables (pgbench -i -I d)")
        guard let tps = Self.transactionsPerSecond(in: output) else {
            throw CommandFailure("pgbench ran but printed no \"tps = …\" line:\n\(output)")
        }
        return Measurement(transactionsPerSecond: tps, fsync: fsync.isEmpty ? "unknown" : fsync)
    }

    /// Each client's share of ``transactions``, at least one.
    var transactionsPerClient: Int { max(1, transactions / clients) }

    /// The rate in pgbench's `tps = 1234.56 (without initial connection time)` line.
    static func transactionsPerSecond(in output: String) -> Double? {
        for line in output.split(separator: "\n") where line.hasPrefix("tps = ") {
            if let number = line.dropFirst(6).split(separator: " ").first, let tps = Double(number) { return tps }
        }
        return nil
    }

    /// The path of a PostgreSQL client program: on `PATH`, else in the newest `/usr/lib/postgresql/*/bin`.
    private static func tool(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        var candidates = path.split(separator: ":").map { "\($0)/\(name)" }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        candidates += versions.sorted { $0.compare($1, options: .numeric) == .orderedDescending }.map { "/usr/lib/postgresql/\($0)/bin/\(name)" }
        guard let found = candidates.first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw CommandFailure("--pgbench needs PostgreSQL's \(name), which is not on PATH: install PostgreSQL's client programs (Debian: apt-get install postgresql-client).")
        }
        return found
    }

    /// Runs a program to its end and returns what it printed; a failure names `step` and what the program said.
    @discardableResult
    private static func run(_ executable: String, _ arguments: [String], step: String? = nil) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read before waiting: a full pipe would stop the program.
        async let printed = output.fileHandleForReading.readToEnd()
        async let complained = errors.fileHandleForReading.readToEnd()
        let (out, err) = (try await printed ?? Data(), try await complained ?? Data())
        process.waitUntilExit()
        let text = String(decoding: out, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw CommandFailure("\(step ?? URL(fileURLWithPath: executable).lastPathComponent) failed (exit \(process.terminationStatus)): \(String(decoding: err, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        // pgbench prints its report on stdout and its progress on stderr; the report is what is read.
        return text + String(decoding: err, as: UTF8.self)
    }
}
