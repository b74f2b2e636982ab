import AppStoreFormats
import AppStorePostgres
import ArgumentParser
import Foundation

/// `storekit bench`: throughput of the formats module's hot paths, and of subscription renewals.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure signing, verification and renewal throughput (build with -c release for real figures).",
        discussion: """
            Benchmarks: jws-sign, jws-verify (chain cached), jws-verify-uncached, receipt-build (encode and sign \
            a receipt with 10 purchases), receipt-verify. With no names, runs them all, each for --seconds \
            seconds on one task, with a fresh in-memory certificate authority. Prints "NAME: N ops in S s = R/s".

            renewals (run only when named): one subscriber through ten years of monthly renewals on a virtual \
            clock, then --subscribers monthly subscribers (bought 32 at a time) in a temporary SQLite store advanced \
            one year (a progress bar on a terminal), then its floor: SQLite alone copying the transaction and \
            notification rows the year wrote into a fresh store with the same tables and indexes, in one transaction \
            ("renewals-floor: … renewals took Nx that"). With --database URL, the same year again on that \
            PostgreSQL database, in a schema of its own dropped afterwards ("renewals-postgres: … Nx the SQLite time").

            http (run only when named): drives a running `storekit serve` at --server over loopback with the \
            --workload (purchases, transaction-info, verify-receipt or tenants) until --requests were sent or \
            --seconds passed, and prints throughput and latency percentiles from an HDR histogram. The load goes over \
            --connections keep-alive connections from one thread, so it takes little of the CPU the server needs. \
            Without --rate, each connection sends its next request when the last was answered (the most the \
            server takes); with --rate, requests fall due at that rate whatever the answers, go out on the next \
            free connection, and each latency counts from the time its request was due. transaction-info needs \
            an API key the server knows (`storekit keys create`).

            purchases with --pgbench URL also runs pgbench's built-in TPC-B-like script (scale 1: one branch row \
            every transaction updates, as a tenant's purchases take its row lock) on the server's PostgreSQL \
            database, just before the purchases and again just after, as many transactions as --requests over \
            --pgbench-clients clients each time, drops pgbench's tables, and prints pgbench's two rates, the \
            cluster's fsync setting and the purchases' rate as a share of the two rates' mean: the database's own \
            limit on the same machine in the same minutes. pgbench and psql must be installed.

            purchases with --tenants N spreads the purchases over N tenants in turn (/t/bench-0/ to \
            /t/bench-<N-1>/), each made on first use by one purchase before the load is timed (the "warm-up" \
            lines), so its rate compares with the single-tenant one of the same server.

            tenants, as a fleet of CI jobs with a store per test: creates --tenants new tenants (default 1000, \
            named bench-<run>-<index>) through POST /control/tenants, each selling the catalog of --config FILE \
            if given (sent as the request's configuration) or the server's, then makes one purchase of --product \
            in each, then deletes them all (DELETE /control/tenants/{name}; --keep-tenants leaves them), and \
            prints each phase's rate \
            (tenants/s, requests/s) and latency percentiles, and ignores --requests and --seconds: every tenant is \
            made. With the server on this machine it reads the server process's resident memory (VmRSS), open \
            file descriptors and the size of its open SQLite databases from /proc before, after creating, after the \
            purchases (and, with --idle SECONDS, again after the tenants sat idle that long) and after deleting, \
            and prints the cost per tenant in KB, descriptors and threads, and the share of the tenants' memory \
            and disk still held after deleting them. The process is the one \
            listening on the --server port, found through /proc/net/tcp among this user's processes; give \
            --server-pid when it cannot be found (another user's server, a container), or the memory lines say \
            it was not measured.

            Examples:
              storekit bench
              storekit bench jws-verify jws-verify-uncached --seconds 3
              swift build -c release && .build/release/storekit bench renewals --subscribers 100000
              storekit bench renewals --subscribers 10000 --database postgres://store@127.0.0.1/appstore
              storekit serve --config Examples/Demo.storekit &
              storekit bench http --workload purchases --requests 20000 --connections 32
              storekit bench http --workload verify-receipt --rate 1000 --seconds 10
              storekit bench http --workload purchases --tenants 1000 --requests 20000 --connections 32
              storekit serve --config Examples/Demo.storekit --database postgres://store@127.0.0.1/appstore &
              storekit bench http --workload purchases --requests 20000 --connections 32 \\
                --pgbench postgres://store@127.0.0.1/appstore
              storekit bench http --workload tenants --tenants 1000 --config Examples/Demo.storekit --idle 10
            """
    )

    enum Benchmark: String, ExpressibleByArgument, CaseIterable {
        case jwsSign = "jws-sign"
        case jwsVerify = "jws-verify"
        case jwsVerifyUncached = "jws-verify-uncached"
        case receiptBuild = "receipt-build"
        case receiptVerify = "receipt-verify"
        case renewals
        case http

        /// The benchmarks that run when none is named: the quick ones.
        static let defaults: [Benchmark] = [.jwsSign, .jwsVerify, .jwsVerifyUncached, .receiptBuild, .receiptVerify]
    }

    @Argument(help: "Benchmarks to run (default: all).")
    var names: [Benchmark] = []

    @Option(help: "Seconds per benchmark; for http, the most the load lasts. (default: 2; http: 60, so --requests decides)")
    var seconds: Double?

    /// How long each benchmark runs: http's load stops at --requests long before its default.
    private func duration(of benchmark: Benchmark) -> Double {
        seconds ?? (benchmark == .http ? 60 : 2)
    }

    @Option(help: "Subscribers the renewals benchmark advances one year.")
    var subscribers: Int = 100_000

    @Option(help: ArgumentHelp("renewals: a PostgreSQL database to run the year on as well, in a schema of its own that is dropped afterwards.", valueName: "postgres-url"))
    var database: String?

    @Option(help: ArgumentHelp("http: the server to load.", valueName: "url"))
    var server = "http://127.0.0.1:8080"

    @Option(help: ArgumentHelp("http: purchases, transaction-info, verify-receipt or tenants.", valueName: "workload"))
    var workload: String = HTTPBenchmark.Workload.purchases.rawValue

    @Option(help: "http: the most requests to send.")
    var requests = 10_000

    @Option(help: "http: keep-alive connections. Without --rate each sends its next request when the last was answered; with --rate a request goes out on the next free one.")
    var connections = 16

    @Option(help: ArgumentHelp("http: requests per second to send at fixed times, instead of as fast as answered.", valueName: "per-second"))
    var rate: Double?

    @Option(help: ArgumentHelp("http: the consumable product purchases buy.", valueName: "product-id"))
    var product = "com.example.demo.coins.100"

    @Option(help: ArgumentHelp("http: the app the purchases are for.", valueName: "bundle-id"))
    var bundleID = "com.example.demo"

    @Option(help: ArgumentHelp("http purchases: tenants to spread the purchases over (default: the server's own store); http tenants: tenants to make (default: 1000).", valueName: "count"))
    var tenants: Int?

    @Option(help: ArgumentHelp("http tenants: the .storekit file each tenant sells (default: the server's catalog).", valueName: "file"))
    var config: String?

    @Option(help: ArgumentHelp("http tenants: the server's process id, for its memory and descriptors (default: the process listening on the --server port, when this user can see it).", valueName: "pid"))
    var serverPID: Int32?

    @Option(help: ArgumentHelp("http tenants: seconds to leave the tenants idle after their purchases before measuring the server again, for the idle cost per tenant.", valueName: "seconds"))
    var idle: Double?

    @Flag(help: "http tenants: leave the tenants on the server, to look at them, rather than delete them last.")
    var keepTenants = false

    @Option(help: ArgumentHelp("http purchases: the server's PostgreSQL database; before and after the purchases, pgbench's TPC-B-like script runs on it, and the purchases' rate is printed as a share of pgbench's mean rate.", valueName: "postgres-url"))
    var pgbench: String?

    @Option(help: ArgumentHelp("http purchases with --pgbench: pgbench's clients; the server's pool size by default.", valueName: "count"))
    var pgbenchClients = 8

    @Option(help: ArgumentHelp("http transaction-info: the API key's .p8 file.", valueName: "file"))
    var keyFile: String?

    @Option(help: ArgumentHelp("http transaction-info: the API key's identifier.", valueName: "key-id"))
    var keyID: String?

    @Option(help: ArgumentHelp("http transaction-info: the API key's issuer.", valueName: "issuer"))
    var issuer: String?

    /// The `http` benchmark the options describe.
    func httpBenchmark() throws -> HTTPBenchmark {
        guard let serverURL = URL(string: server), ["http", "https"].contains(serverURL.scheme ?? ""), serverURL.host != nil else {
            throw FormatsCLI.failure("--server \"\(server)\" is not an http URL such as http://127.0.0.1:8080.")
        }
        guard let load = HTTPBenchmark.Workload(rawValue: workload) else {
            throw FormatsCLI.failure("--workload \"\(workload)\" is not one of \(HTTPBenchmark.Workload.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        guard requests > 0, connections > 0, rate.map({ $0 > 0 }) ?? true else {
            throw FormatsCLI.failure("--requests, --connections and --rate must be positive.")
        }
        guard tenants.map({ $0 > 0 }) ?? true else { throw FormatsCLI.failure("--tenants must be positive.") }
        guard load == .purchases || load == .tenants || tenants == nil else {
            throw FormatsCLI.failure("--tenants is for --workload purchases or tenants.")
        }
        guard load == .tenants || (config == nil && serverPID == nil && idle == nil) else {
            throw FormatsCLI.failure("--config, --server-pid and --idle are for --workload tenants.")
        }
        guard idle.map({ $0 >= 0 }) ?? true else { throw FormatsCLI.failure("--idle must not be negative.") }
        var reference: PgbenchReference?
        if let pgbench {
            guard load == .purchases else { throw FormatsCLI.failure("--pgbench is for --workload purchases.") }
            guard pgbench.hasPrefix("postgres://") || pgbench.hasPrefix("postgresql://") else {
                throw FormatsCLI.failure("--pgbench \"\(pgbench)\" is not a postgres:// URL: give the database the server was started with (serve --database).")
            }
            guard pgbenchClients > 0 else { throw FormatsCLI.failure("--pgbench-clients must be positive.") }
            reference = PgbenchReference(databaseURL: pgbench, clients: pgbenchClients, transactions: requests)
        }
        var apiKey: HTTPBenchmark.APIKey?
        if let keyFile, let keyID, let issuer {
            apiKey = HTTPBenchmark.APIKey(file: keyFile, id: keyID, issuer: issuer)
        } else if keyFile != nil || keyID != nil || issuer != nil {
            throw FormatsCLI.failure("Give --key-file, --key-id and --issuer together.")
        }
        return HTTPBenchmark(
            server: serverURL, workload: load, requests: requests, seconds: duration(of: .http), connections: connections, rate: rate,
            productID: product, bundleID: bundleID, apiKey: apiKey, tenants: tenants, configurationFile: config, serverPID: serverPID, idleSeconds: idle,
            keepTenants: keepTenants, pgbench: reference
        )
    }

    func run() async throws {
        guard seconds.map({ $0 > 0 }) ?? true else { throw FormatsCLI.failure("--seconds must be positive.") }
        let authority = try CertificateAuthority(issuedAt: CertificateAuthority.defaultValidity.lowerBound)
        let signer = JWSSigner(certificateAuthority: authority)
        let signedAt = Date(timeIntervalSince1970: 1_750_000_000)

        var transaction = JWSTransactionDecodedPayload()
        transaction.transactionId = "2000000847061981"
        transaction.originalTransactionId = "2000000847061981"
        transaction.bundleId = "com.example.app"
        transaction.productId = "com.example.app.coins"
        transaction.purchaseDate = signedAt
        transaction.originalPurchaseDate = signedAt
        transaction.quantity = 1
        transaction.type = .consumable
        transaction.inAppOwnershipType = .purchased
        transaction.signedDate = signedAt
        transaction.transactionReason = .purchase
        transaction.storefront = "USA"
        transaction.storefrontId = "143441"
        transaction.price = 990
        transaction.currency = "USD"
        let token = try signer.sign(transaction)
        let jwsVerifier = try JWSVerifier(rootCertificates: authority.rootCertificatesDER, bundleID: "com.example.app")

        var receipt = AppReceipt(
            bundleID: "com.example.app", appVersion: "1", opaqueValue: Data(repeating: 7, count: 16),
            creationDate: signedAt, originalPurchaseDate: signedAt, originalAppVersion: "1.0"
        )
        for index in 0..<10 {
            receipt.inAppPurchases.append(
                InAppPurchaseReceipt(
                    productID: "com.example.app.item\(index)", transactionID: "\(2_000_000_000 + index)",
                    originalTransactionID: "\(2_000_000_000 + index)", purchaseDate: signedAt,
                    originalPurchaseDate: signedAt, productType: .nonConsumable, webOrderLineItemID: 0
                )
            )
        }
        receipt.setDeviceHash(deviceIdentifier: UUID(uuidString: "956328D9-CC6A-47F4-BE40-6953FB0AB6C7")!)
        let receiptSigner = ReceiptSigner(certificateAuthority: authority)
        let receiptData = try receiptSigner.sign(receipt)
        let receiptVerifier = try ReceiptVerifier(rootCertificates: authority.rootCertificatesDER)

        guard subscribers > 0 else { throw FormatsCLI.failure("--subscribers must be positive.") }
        if let database {
            guard names.contains(.renewals) else { throw FormatsCLI.failure("--database is for the renewals benchmark: storekit bench renewals --database URL.") }
            guard PostgresStorage.Configuration.isPostgresURL(database) else {
                throw FormatsCLI.failure("--database \"\(database)\" is not a postgres:// URL, such as postgres://store@127.0.0.1/appstore.")
            }
        }
        for benchmark in names.isEmpty ? Benchmark.defaults : names {
            let operation: () async throws -> Bool
            switch benchmark {
            case .renewals:
                try await RenewalBenchmark(subscribers: subscribers, postgresURL: database).run()
                continue
            case .http:
                try await httpBenchmark().run()
                continue
            case .jwsSign:
                operation = { !(try signer.sign(transaction)).isEmpty }
            case .jwsVerify:
                operation = { if case .success = await jwsVerifier.verifyTransaction(token) { true } else { false } }
            case .jwsVerifyUncached:
                operation = {
                    jwsVerifier.removeCachedChains()
                    return if case .success = await jwsVerifier.verifyTransaction(token) { true } else { false }
                }
            case .receiptBuild:
                operation = { !(try receiptSigner.sign(receipt)).isEmpty }
            case .receiptVerify:
                operation = { if case .success = await receiptVerifier.verify(receiptData) { true } else { false } }
            }
            guard try await operation() else { throw FormatsCLI.failure("\(benchmark.rawValue) failed its first run.") }
            let clock = ContinuousClock()
            let start = clock.now
            let deadline = start.advanced(by: .milliseconds(Int64(duration(of: benchmark) * 1000)))
            var count = 0
            while clock.now < deadline {
                for _ in 0..<16 { _ = try await operation() }
                count += 16
            }
            let elapsed = start.duration(to: clock.now)
            let elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let rate = Double(count) / elapsedSeconds
            print("\(benchmark.rawValue): \(count) ops in \(String(format: "%.2f", elapsedSeconds)) s = \(String(format: "%.0f", rate))/s")
        }
    }
}
