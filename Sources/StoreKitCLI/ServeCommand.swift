import AppStoreEngine
import AppStoreHosting
import AppStoreServer
import ArgumentParser
import CoreMetrics
import Foundation
import Hummingbird
import Logging
import Prometheus

/// `storekit serve`: runs the store as an HTTP server.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the App Store as an HTTP server on this machine.",
        discussion: """
        The server keeps its state in the data directory (a SQLite file), or with --database postgres://… in a \
        PostgreSQL database that several servers can share; it shares it with the other `storekit` commands, \
        listens on 127.0.0.1 unless told otherwise and stops cleanly on Ctrl-C or SIGTERM. Open its address in a \
        browser for the transaction manager.

        Every endpoint also exists once per tenant under /t/{tenant}/ (the bare paths serve --tenant, `default` \
        unless given): /t/test-42/control/purchases buys in an isolated store of its own, opened on first use in the \
        same data directory, with its own clock, transactions and notifications. Parallel backend tests each take one.

        Endpoints: GET /health (status, version, the store clock's now), GET /v1/products (the catalog), and of \
        the App Store Server API (for tokens signed with a key from `storekit keys create`): transaction info \
        (/inApps/v1/transactions/{id}), subscription statuses (/inApps/v1/subscriptions/{id}), transaction history \
        (/inApps/v1|v2/history/{id}), refund history (/inApps/v2/refund/lookup/{id}), notification history \
        (POST /inApps/v1/notifications/history), renewal-date extension (PUT /inApps/v1/subscriptions/extend/{id}) \
        app account tokens (PUT /inApps/v1/transactions/{id}/appAccountToken) and test notifications \
        (POST /inApps/v1/notifications/test, GET /inApps/v1/notifications/test/{token}), mass extensions \
        (/inApps/v1/subscriptions/extend/mass), app transaction info, consumption information, order lookup and \
        finishing a transaction. The control API \
        (/control/purchases, /control/transactions/{id}/refund, /control/clock/advance, /control/settings, …) \
        drives the store from backend tests in any language.

        App processes use the store over HTTP: set OPENSTOREKIT_SERVER=http://127.0.0.1:PORT (and OPENSTOREKIT_TENANT \
        for a tenant) in the app's environment instead of OPENSTOREKIT_CONFIG. Purchases, refunds and renewals made \
        here reach the running app through the device protocol's long poll (/device/…).

        verifyReceipt as Apple serves it: POST /verifyReceipt (production) and POST /sandbox/verifyReceipt (sandbox), \
        for the store's receipts. --shared-secret sets an app's shared secret (the request's password); an app \
        without one accepts any password.

        With --notification-url the server sends App Store Server Notifications V2 as the App Store does: each change \
        in the store's outbox is POSTed as {"signedPayload": "<JWS>"}, and an answer \
        other than 200–206 is retried 1, 12, 24, 48 and 72 hours later on the store's clock, in order per original \
        transaction. Attempts are saved, so a restart resumes where it stopped; `storekit notifications list` shows \
        them, and `storekit notifications redeliver UUID` sends a notification again. Give one URL for every app, or \
        BUNDLE_ID=URL for one app (repeatable).

        HTTPS at Apple's addresses: with --https-port the server also answers over HTTPS, with a certificate from \
        its own TLS root (kept in <data-dir>/tls/, exported with `storekit ca export --tls`, apart from the roots that \
        verify what it signs) for api.storekit.apple.com, api.storekit-sandbox.apple.com, their earlier \
        …itunes.apple.com spellings, local-testing-base-url, buy.itunes.apple.com, sandbox.itunes.apple.com, \
        localhost and the loopback addresses (more with --tls-host). Map those hosts to this machine and trust the \
        root, and a backend's unchanged code — Apple's server libraries, verifyReceipt clients — reaches this store: \
        `storekit ca env` prints the hosts line and the variables each language reads. POST \
        https://sandbox.itunes.apple.com/verifyReceipt is the sandbox verifyReceipt, as at Apple.

        GET /metrics answers in Prometheus' text format: requests by route group, method and status and their \
        duration, purchases, renewals and refunds, notification attempts and failures by result, and the outbox's \
        depth (openstorekit_* metrics, by tenant).

        Every option can be set by the environment variable its help names after "env:" instead; an option given \
        on the command line wins over its variable. Variables that take several values (notification URLs, shared \
        secrets) separate them with spaces or commas.

        Example:
          storekit serve --config Examples/Demo.storekit
          OPENSTOREKIT_CONFIG=Examples/Demo.storekit OPENSTOREKIT_PORT=9090 storekit serve
          storekit serve --config Examples/Demo.storekit --port 0 --data-dir /tmp/store
          storekit serve --config Examples/Demo.storekit --shared-secret com.example.demo=0123456789abcdef
          storekit serve --config Examples/Demo.storekit --notification-url http://127.0.0.1:9000/apple/notifications
          sudo storekit serve --config Examples/Demo.storekit --https-port 443   # Apple's URLs, with `storekit ca env`
        """
    )

    @Option(help: ArgumentHelp(
        "The .storekit file that lists the products. (env: \(EnvironmentVariables.configuration))", valueName: "file"
    ))
    var config: String?

    @OptionGroup var location: StoreLocationOptions

    @Option(help: ArgumentHelp(
        "The address to listen on; 127.0.0.1 unless given. Use 0.0.0.0 only if other machines must reach the store. (env: \(EnvironmentVariables.host))",
        valueName: "host"
    ))
    var host: String?

    @Option(help: ArgumentHelp(
        "The port to listen on; 8080 unless given, 0 picks a free port and prints it. (env: \(EnvironmentVariables.port))",
        valueName: "port"
    ))
    var port: Int?

    @Option(name: .customLong("https-port"), help: ArgumentHelp(
        "Also serve HTTPS on this port, at Apple's host names with a certificate from the store's TLS root (storekit ca export --tls); 443 for Apple's exact URLs, 0 for a free port. (env: \(EnvironmentVariables.httpsPort))",
        valueName: "port"
    ))
    var httpsPort: Int?

    @Option(name: .customLong("tls-host"), help: ArgumentHelp(
        "Another host name or address the HTTPS certificate names, besides Apple's and the loopback names, e.g. a container's service name (repeatable; the variable takes several, separated by spaces or commas). (env: \(EnvironmentVariables.tlsHost))",
        valueName: "host"
    ))
    var tlsHosts: [String] = []

    @Option(help: ArgumentHelp(
        "Log level: trace, debug, info, notice, warning, error or critical; info unless given. (env: \(EnvironmentVariables.logLevel))",
        valueName: "level"
    ))
    var logLevel: String?

    @Option(
        name: .customLong("notification-url"),
        help: ArgumentHelp(
            "Where to send App Store Server Notifications: URL for every app, or BUNDLE_ID=URL (repeatable; the variable takes several, separated by spaces or commas). (env: \(EnvironmentVariables.notificationURL))",
            valueName: "url"
        )
    )
    var notificationURLs: [String] = []

    @Option(
        name: .customLong("notification-timeout"),
        help: ArgumentHelp(
            "Seconds to wait for an app server's answer before an attempt counts as TIMED_OUT; 10 unless given. Servers sharing a database also take over a stopped server's notifications after twice this and ten seconds. (env: \(EnvironmentVariables.notificationTimeout))",
            valueName: "seconds"
        )
    )
    var notificationTimeout: Double?

    @Option(
        name: .customLong("shared-secret"),
        help: ArgumentHelp(
            "An app's verifyReceipt shared secret, as BUNDLE_ID=SECRET; repeat for several apps (the variable takes several, separated by spaces or commas). (env: \(EnvironmentVariables.sharedSecret))",
            valueName: "bundle=secret"
        )
    )
    var sharedSecretOptions: [String] = []

    /// The settings of `storekit serve`: each option's value, else its environment variable's, else its default.
    struct Settings {
        var config: String
        var host = "127.0.0.1"
        var port = 8080
        /// The HTTPS port; `nil` serves plain HTTP only.
        var httpsPort: Int?
        /// The names the HTTPS certificate carries besides Apple's and the loopback ones.
        var tlsHosts: [String] = []
        var logLevel = Logger.Level.info
        var destinations = NotificationDestinations()
        var notificationTimeout: Double = 10
        var sharedSecrets: [String: String] = [:]
    }

    /// Resolves the settings: a flag wins over its variable. Errors name the flag or the variable whose value is wrong.
    func settings(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Settings {
        typealias Variables = EnvironmentVariables
        func variable(_ name: String) -> String? { Variables.value(name, in: environment) }
        guard let config = config ?? variable(Variables.configuration) else {
            throw ValidationError("No .storekit file: give --config FILE or set \(Variables.configuration)=FILE.")
        }
        var settings = Settings(config: config)
        if let host {
            settings.host = host
        } else if let value = variable(Variables.host) {
            settings.host = value
        }
        /// The port an option or else its variable gives; `examples` says what to use instead of a bad one.
        func portNumber(_ option: Int?, flag: String, variable name: String, examples: String) throws -> Int? {
            if let option {
                guard (0...65_535).contains(option) else {
                    throw ValidationError("\(flag) \(option) is not a port number. Use \(examples).")
                }
                return option
            }
            guard let value = variable(name) else { return nil }
            guard let port = Int(value), (0...65_535).contains(port) else {
                throw ValidationError("\(name)=\"\(value)\" is not a port number. Set it to \(examples).")
            }
            return port
        }
        settings.port = try portNumber(port, flag: "--port", variable: Variables.port, examples: "0 to 65535, e.g. 8080, or 0 for a free port") ?? settings.port
        settings.httpsPort = try portNumber(
            httpsPort, flag: "--https-port", variable: Variables.httpsPort, examples: "443 for Apple's exact URLs, 8443, or 0 for a free port"
        )
        settings.tlsHosts = tlsHosts.isEmpty ? Variables.list(Variables.tlsHost, in: environment) ?? [] : tlsHosts
        if let bad = settings.tlsHosts.first(where: { $0.isEmpty || $0.contains { $0.isWhitespace || $0 == "/" } }) {
            throw ValidationError("--tls-host \"\(bad)\" is not a host name or address. Give a name like storekit.internal or an address like 10.0.0.5.")
        }
        if let logLevel {
            guard let level = Logger.Level(rawValue: logLevel) else {
                throw ValidationError("Unknown log level \"\(logLevel)\". Use trace, debug, info, notice, warning, error or critical.")
            }
            settings.logLevel = level
        } else if let value = variable(Variables.logLevel) {
            guard let level = Logger.Level(rawValue: value.lowercased()) else {
                throw ValidationError("\(Variables.logLevel)=\"\(value)\" is not a log level. Set it to trace, debug, info, notice, warning, error or critical.")
            }
            settings.logLevel = level
        }
        if let notificationTimeout {
            guard notificationTimeout > 0, notificationTimeout.isFinite else {
                throw ValidationError("--notification-timeout \(notificationTimeout) is not a number of seconds above 0, e.g. 10 or 2.5.")
            }
            settings.notificationTimeout = notificationTimeout
        } else if let value = variable(Variables.notificationTimeout) {
            guard let seconds = Double(value), seconds > 0, seconds.isFinite else {
                throw ValidationError("\(Variables.notificationTimeout)=\"\(value)\" is not a number of seconds above 0. Set it to e.g. 10 or 2.5.")
            }
            settings.notificationTimeout = seconds
        }
        if !notificationURLs.isEmpty {
            settings.destinations = try Self.destinations(notificationURLs, source: "--notification-url")
        } else if let values = Variables.list(Variables.notificationURL, in: environment) {
            settings.destinations = try Self.destinations(values, source: Variables.notificationURL)
        }
        if !sharedSecretOptions.isEmpty {
            settings.sharedSecrets = try Self.sharedSecrets(sharedSecretOptions, source: "--shared-secret")
        } else if let values = Variables.list(Variables.sharedSecret, in: environment) {
            settings.sharedSecrets = try Self.sharedSecrets(values, source: Variables.sharedSecret)
        }
        return settings
    }

    /// The destinations notification URLs name; `source` is the option or variable they came from, for errors.
    static func destinations(_ values: [String], source: String) throws -> NotificationDestinations {
        var destinations = NotificationDestinations()
        for option in values {
            let (bundleID, text): (String?, String) = if let equals = option.firstIndex(of: "="), !option[..<equals].contains("/") {
                (String(option[..<equals]), String(option[option.index(after: equals)...]))
            } else {
                (nil, option)
            }
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
                throw ValidationError("\(source) \"\(option)\": \"\(text)\" is not an http or https URL. Write it like http://127.0.0.1:9000/notifications or com.example.app=https://example.com/apple.")
            }
            if let bundleID {
                destinations.urlsByBundleID[bundleID] = url
            } else if destinations.defaultURL != nil {
                throw ValidationError("\(source) gives a URL for every app twice. Give one URL for every app, and BUNDLE_ID=URL for others.")
            } else {
                destinations.defaultURL = url
            }
        }
        return destinations
    }

    /// The shared secrets `BUNDLE_ID=SECRET` values name, by bundle identifier; `source` is where they came from.
    static func sharedSecrets(_ values: [String], source: String) throws -> [String: String] {
        var secrets: [String: String] = [:]
        for option in values {
            guard let equals = option.firstIndex(of: "="), equals != option.startIndex, option.index(after: equals) != option.endIndex else {
                throw ValidationError("\(source) \"\(option)\" is not BUNDLE_ID=SECRET, e.g. com.example.demo=0123456789abcdef.")
            }
            secrets[String(option[..<equals])] = String(option[option.index(after: equals)...])
        }
        return secrets
    }

    func validate() throws {
        _ = try settings()
    }

    func run() async throws {
        let settings = try settings()
        let host = settings.host, config = settings.config, destinations = settings.destinations
        if !["127.0.0.1", "::1", "localhost"].contains(host) {
            FileHandle.standardError.write(Data("warning: listening on \(host), so other machines can reach this store and change its purchases; it has no authentication but the App Store Server API's. Use the default 127.0.0.1 unless they must.\n".utf8))
        }
        let configuration = try loadConfiguration(config)
        let engine = try location.openStore(configuration: configuration)
        // The signing keys load on the first signature, and a new data directory generates its RSA keys then: a fifth
        // of a second the first purchase would wait. A server loads them before it says it is serving, and an
        // unusable authority stops it here instead of failing every purchase.
        do {
            _ = try engine.signer.certificateAuthority
        } catch {
            throw CommandFailure(error.message)
        }
        var logger = Logger(label: "storekit")
        logger.logLevel = settings.logLevel
        let metrics = StoreMetrics(registry: Self.metricsRegistry)
        try await importKeyFiles(location, into: engine.storage)
        try await importNotificationURLFiles(location, into: engine.storage)
        try await importCatalogFiles(location, into: engine.storage, serverTenant: engine.tenantID)
        let apiKeys = ServerAPIKeyRing(storage: engine.storage)
        let sender = NotificationSender(
            engine: engine, destinations: destinations, timeout: settings.notificationTimeout, metrics: metrics, logger: logger
        )
        var server = StoreServer(engine: engine, host: host, port: settings.port, apiKeys: apiKeys, notificationSender: sender, logger: logger)
        server.sharedSecrets = settings.sharedSecrets
        server.metrics = metrics
        // The server runs every tenant's sender (StoreService): URLs set through another server on the storage count
        // from its next pass.
        let directory = location.directory, notificationTimeout = settings.notificationTimeout
        server.tenants = TenantDirectory(storage: engine.storage, serverTenant: engine.tenantID) { [logger] name, catalog throws(StoreError) in
            if name == engine.tenantID {
                // Opened again after a reset, which stopped its sender: it sends again once the server adopts it.
                return TenantDirectory.Tenant(engine: engine, notificationSender: sender)
            }
            let tenantEngine = try StoreFactory.openWithLinkedDatabases(StoreSpecification(
                location: .dataDirectory(directory), configuration: catalog ?? configuration, tenant: name, databaseURL: location.database
            ))
            let tenantSender = NotificationSender(
                engine: tenantEngine, destinations: destinations, timeout: notificationTimeout, metrics: metrics, logger: logger
            )
            return TenantDirectory.Tenant(engine: tenantEngine, notificationSender: tenantSender)
        }
        if let httpsPort = settings.httpsPort {
            let hosts = AppleHosts.all + AppleHosts.loopback + settings.tlsHosts
            do {
                let (_, identity) = try TLSAuthority.loadOrCreate(in: directory.tlsURL, hosts: hosts, now: SystemClock().now())
                server.https = HTTPSListener(host: host, port: httpsPort, identity: identity)
            } catch {
                throw CommandFailure(error.message)
            }
        }
        let products = await engine.catalog.products.count
        let urlHost = host.contains(":") ? "[\(host)]" : host
        do {
            try await run(server, products: products, config: config, urlHost: urlHost)
        } catch is ListenerFailure {
            // Each listener's failure was printed with what to do.
            throw ExitCode.failure
        }
        // Requests in flight were answered, then each notification attempt under way was finished and saved.
    }

    /// Runs the server's listeners, printing each one's address once it accepts connections and why one that cannot
    /// start did not.
    private func run(_ server: StoreServer, products: Int, config: String, urlHost: String) async throws {
        // Written unbuffered, so scripts that wait for these lines see them at once.
        try await server.run { listener, port in
            let line = switch listener {
            case .http: "storekit \(StoreDefaults.version): serving \(products) products from \(config) at http://\(urlHost):\(port)\n"
            case .https: "storekit \(StoreDefaults.version): serving HTTPS for Apple's hosts (trust `storekit ca export --tls`) at https://\(urlHost):\(port)\n"
            }
            FileHandle.standardOutput.write(Data(line.utf8))
        } onListenerFailure: { failure in
            FileHandle.standardError.write(Data("error: \(failure.message)\n".utf8))
        }
    }

    /// The process's metrics registry, made once: `MetricsSystem` is bootstrapped with a Prometheus factory over it,
    /// so what other libraries record with swift-metrics appears at `/metrics` too.
    static let metricsRegistry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()
}
