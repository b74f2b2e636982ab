import AppStoreEngine
import AppStoreServer
import ArgumentParser
import Foundation

/// `storekit notifications url …`: where a running server sends App Store Server Notifications.
struct NotificationURLCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "url",
        abstract: "Show or change where a running server sends App Store Server Notifications.",
        discussion: """
        A store sends its notifications to one URL for every app, and to URLs of their own for particular apps \
        (--bundle-id). `storekit serve --notification-url` gives the first ones; these commands change them while \
        it runs, as the transaction manager page's "Send to" field does, and sending starts at once with what the \
        outbox already owes. What is set here is the tenant's, kept in its storage (the data directory's database, \
        or the PostgreSQL database of --database): every `storekit serve` on that storage sends there from its \
        next pass, a restart keeps it, and it replaces --notification-url for the tenant. URLs an earlier version \
        kept in tenants/<tenant>.notification-urls.json are moved into storage when `storekit serve` starts, and \
        the file renamed *.imported.

        These commands act through a running server's control API, so they need --server URL (or \
        $OPENSTOREKIT_SERVER); --tenant picks a tenant of it. Without a subcommand, `storekit notifications url` \
        shows the URLs.

        Example:
          storekit notifications url --server http://127.0.0.1:8080
          storekit notifications url set http://127.0.0.1:9000/apple --server http://127.0.0.1:8080
          storekit notifications url set https://example.com/apple --bundle-id com.example.demo --tenant qa-1
          storekit notifications url clear --server http://127.0.0.1:8080
        """,
        subcommands: [NotificationURLShowCommand.self, NotificationURLSetCommand.self, NotificationURLClearCommand.self],
        defaultSubcommand: NotificationURLShowCommand.self
    )
}

/// The options the `storekit notifications url` subcommands share: the running server, its tenant, and how to print.
struct NotificationURLOptions: ParsableArguments {
    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Flag(help: #"Print the URLs as one JSON object: {"defaultURL": …, "urlsByBundleID": {…}}."#)
    var json = false

    func validate() throws {
        _ = try server()
    }

    /// The running server's store; without `--server`, an error that says why one is needed.
    func server() throws -> ServerControl {
        guard let server = try remote.serverControl(location: location) else {
            throw ValidationError("""
                Notification URLs belong to a running server, and no server was given. Give --server URL (or set \
                OPENSTOREKIT_SERVER) to see or change where a running `storekit serve` sends notifications; to send \
                from the start, run `storekit serve --notification-url URL`.
                """)
        }
        return server
    }

    /// Prints the destinations, after `heading` for people.
    func show(_ destinations: NotificationDestinations, heading: String) throws {
        if json {
            try printJSON(destinations)
            return
        }
        print("\(heading) (store \"\(location.resolvedTenant)\" on \(try remote.place(location: location))):")
        print("  every app:  \(destinations.defaultURL?.absoluteString ?? "none (notifications of apps without a URL of their own are kept as not sent)")")
        for (bundleID, url) in destinations.urlsByBundleID.sorted(by: { $0.key < $1.key }) {
            print("  \(bundleID):  \(url.absoluteString)")
        }
    }
}

/// `storekit notifications url show`: where notifications go now.
struct NotificationURLShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show where a running server sends each app's notifications.",
        discussion: """
        One line for every app's URL, then one per app with a URL of its own. --json prints the control API's \
        object (GET /control/notification-url).

        Example:
          storekit notifications url show --server http://127.0.0.1:8080
          storekit notifications url show --server http://127.0.0.1:8080 --tenant qa-1 --json
        """
    )

    @OptionGroup var options: NotificationURLOptions

    func run() async throws {
        try options.show(try await options.server().notificationURLs(), heading: "Notifications are sent to")
    }
}

/// `storekit notifications url set`: sends notifications to a URL.
struct NotificationURLSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Send a running server's notifications to a URL: every app's, or one app's with --bundle-id.",
        discussion: """
        The server POSTs each notification there as {"signedPayload": "<JWS>"}, starting at once with what the \
        outbox owes (notifications kept as not sent stay so: `storekit notifications redeliver` sends one). \
        The URLs afterwards are printed.

        Example:
          storekit notifications url set http://127.0.0.1:9000/apple --server http://127.0.0.1:8080
          storekit notifications url set https://example.com/apple --bundle-id com.example.demo --server http://127.0.0.1:8080
        """
    )

    @Argument(help: ArgumentHelp("Where to POST the notifications: an http or https URL.", valueName: "url"))
    var url: String

    @Option(name: .customLong("bundle-id"), help: ArgumentHelp("Only this app's notifications go there; the others keep theirs.", valueName: "id"))
    var bundleID: String?

    @OptionGroup var options: NotificationURLOptions

    func validate() throws {
        _ = try parsedURL()
        if bundleID?.isEmpty == true { throw ValidationError("--bundle-id is empty. Give the app's bundle identifier, e.g. com.example.demo, or leave it out for every app.") }
    }

    /// The URL argument, checked as the server checks it.
    func parsedURL() throws -> URL {
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host?.isEmpty == false else {
            throw ValidationError("\"\(url)\" is not an http or https URL with a host. Write it like http://127.0.0.1:9000/notifications.")
        }
        return parsed
    }

    func run() async throws {
        let destinations = try await options.server().setNotificationURL(try parsedURL(), bundleID: bundleID)
        try options.show(destinations, heading: "Notifications \(bundleID.map { "of \($0) " } ?? "")are now sent to \(url); all URLs")
    }
}

/// `storekit notifications url clear`: stops sending notifications.
struct NotificationURLClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Stop sending a running server's notifications: every app's URL, or one app's with --bundle-id.",
        discussion: """
        Without --bundle-id, every app's URL is removed (apps with a URL of their own keep it); with it, that app's \
        own URL is removed, so its notifications go to every app's URL, if any. Notifications that fall due without \
        a URL are kept as not sent. The URLs afterwards are printed.

        Example:
          storekit notifications url clear --server http://127.0.0.1:8080
          storekit notifications url clear --bundle-id com.example.demo --server http://127.0.0.1:8080
        """
    )

    @Option(name: .customLong("bundle-id"), help: ArgumentHelp("Remove this app's own URL only.", valueName: "id"))
    var bundleID: String?

    @OptionGroup var options: NotificationURLOptions

    func validate() throws {
        if bundleID?.isEmpty == true { throw ValidationError("--bundle-id is empty. Give the app's bundle identifier, e.g. com.example.demo, or leave it out for every app's URL.") }
    }

    func run() async throws {
        let destinations = try await options.server().setNotificationURL(nil, bundleID: bundleID)
        try options.show(destinations, heading: bundleID.map { "\($0) has no URL of its own now; all URLs" } ?? "Every app's URL is removed; all URLs")
    }
}
