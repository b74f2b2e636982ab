import AppStoreEngine
import AppStoreHosting
import AppStoreServer
import ArgumentParser
import Foundation
import Hummingbird
import Logging

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

        Example:
          storekit serve --config Examples/Demo.storekit
          storekit serve --config Examples/Demo.storekit --port 0 --data-dir /tmp/store
          storekit serve --config Examples/Demo.storekit --shared-secret com.example.demo=0123456789abcdef
          storekit serve --config Examples/Demo.storekit --notification-url http://127.0.0.1:9000/apple/notifications
        """
    )

    @Option(help: ArgumentHelp("The .storekit file that lists the products.", valueName: "file"))
    var config: String

    @OptionGroup var location: StoreLocationOptions

    @Option(help: "The address to listen on. Use 0.0.0.0 only if other machines must reach the store.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free port and prints it.")
    var port = 8080

    @Option(help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel: String = "info"

    @Option(
        name: .customLong("notification-url"),
        help: ArgumentHelp("Where to send App Store Server Notifications: URL for every app, or BUNDLE_ID=URL (repeatable).", valueName: "url")
    )
    var notificationURLs: [String] = []

    /// The destinations the --notification-url options name.
    func destinations() throws -> NotificationDestinations {
        var destinations = NotificationDestinations()
        for option in notificationURLs {
            let (bundleID, text): (String?, String) = if let equals = option.firstIndex(of: "="), !option[..<equals].contains("/") {
                (String(option[..<equals]), String(option[option.index(after: equals)...]))
            } else {
                (nil, option)
            }
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
                throw ValidationError("--notification-url \"\(option)\": \"\(text)\" is not an http or https URL. Write it like http://127.0.0.1:9000/notifications or com.example.app=https://example.com/apple.")
            }
            if let bundleID {
                destinations.urlsByBundleID[bundleID] = url
            } else if destinations.defaultURL != nil {
                throw ValidationError("--notification-url is given twice for every app. Give one URL for every app, and BUNDLE_ID=URL for others.")
            } else {
                destinations.defaultURL = url
            }
        }
        return destinations
    }

    @Option(
        name: .customLong("notification-timeout"),
        help: ArgumentHelp(
            "Seconds to wait for an app server's answer before an attempt counts as TIMED_OUT. Servers sharing a database also take over a stopped server's notifications after twice this and ten seconds.",
            valueName: "seconds"
        )
    )
    var notificationTimeout: Double = 10

    @Option(
        name: .customLong("shared-secret"),
        help: ArgumentHelp("An app's verifyReceipt shared secret, as BUNDLE_ID=SECRET; repeat for several apps.", valueName: "bundle=secret")
    )
    var sharedSecretOptions: [String] = []

    /// The shared secrets the --shared-secret options name, by bundle identifier.
    func sharedSecrets() throws -> [String: String] {
        var secrets: [String: String] = [:]
        for option in sharedSecretOptions {
            guard let equals = option.firstIndex(of: "="), equals != option.startIndex, option.index(after: equals) != option.endIndex else {
                throw ValidationError("--shared-secret \"\(option)\" is not BUNDLE_ID=SECRET, e.g. com.example.demo=0123456789abcdef.")
            }
            secrets[String(option[..<equals])] = String(option[option.index(after: equals)...])
        }
        return secrets
    }

    func validate() throws {
        guard notificationTimeout > 0, notificationTimeout.isFinite else {
            throw ValidationError("--notification-timeout \(notificationTimeout) is not a number of seconds above 0, e.g. 10 or 2.5.")
        }
        _ = try destinations()
        _ = try sharedSecrets()
    }

    func run() async throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("Unknown log level \"\(logLevel)\". Use trace, debug, info, notice, warning, error or critical.")
        }
        if !["127.0.0.1", "::1", "localhost"].contains(host) {
            FileHandle.standardError.write(Data("warning: listening on \(host), so other machines can reach this store and change its purchases; it has no authentication but the App Store Server API's. Use the default 127.0.0.1 unless they must.\n".utf8))
        }
        let configuration = try loadConfiguration(config)
        let engine = try location.openStore(configuration: configuration)
        var logger = Logger(label: "storekit")
        logger.logLevel = level
        let apiKeys = try keyRing(location)
        let destinations = try destinations()
        let sender = NotificationSender(
            engine: engine, destinations: destinations, destinationsFile: location.directory.notificationURLsURL(tenant: engine.tenantID),
            timeout: notificationTimeout, logger: logger
        )
        var server = StoreServer(engine: engine, host: host, port: port, apiKeys: apiKeys, notificationSender: sender, logger: logger)
        server.sharedSecrets = try sharedSecrets()
        if await sender.destinations != NotificationDestinations() { await sender.start() }
        let directory = location.directory, notificationTimeout = notificationTimeout
        server.tenants = TenantDirectory(catalogFolder: directory.tenantCatalogsURL, serverTenant: engine.tenantID) { [logger] name, catalog throws(StoreError) in
            if name == engine.tenantID {
                // Opened again after a reset, which stopped its sender: sending resumes where URLs are set.
                if await sender.destinations != NotificationDestinations() { await sender.start() }
                return TenantDirectory.Tenant(engine: engine, notificationSender: sender)
            }
            let tenantEngine = try StoreFactory.open(StoreSpecification(
                location: .dataDirectory(directory), configuration: catalog ?? configuration, tenant: name, databaseURL: location.database
            ))
            let tenantSender = NotificationSender(
                engine: tenantEngine, destinations: destinations, destinationsFile: directory.notificationURLsURL(tenant: name),
                timeout: notificationTimeout, logger: logger
            )
            if await tenantSender.destinations != NotificationDestinations() { await tenantSender.start() }
            return TenantDirectory.Tenant(engine: tenantEngine, notificationSender: tenantSender)
        }
        let products = await engine.catalog.products.count
        let host = host
        let application = server.makeApplication { port in
            // Written unbuffered, so scripts that wait for this line see it at once.
            let line = "storekit \(StoreDefaults.version): serving \(products) products from \(config) at http://\(host):\(port)\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
        try await application.runService()
        // Requests in flight were answered; each notification attempt under way is finished and saved before exit.
        await sender.stop()
        await server.tenants?.stopSending()
    }
}
