import AppStoreEngine
import AppStoreServer
import AppStoreHosting
import ArgumentParser
import Foundation

/// `storekit notifications url …`: where a store's App Store Server Notifications go.
struct NotificationURLCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "url",
        abstract: "Show or change where a store's App Store Server Notifications are sent.",
        discussion: """
        A store sends its notifications to one URL for every app, and to URLs of their own for particular apps \
        (--bundle-id). `storekit serve --notification-url` gives the first ones; these commands change them while \
        it runs, as the transaction manager page's "Send to" field does, and sending starts at once with what the \
        outbox already owes. What is set here is the tenant's, kept in its storage (the data directory's database, \
        or the PostgreSQL database of --database): every `storekit serve` on that storage sends there from its \
        next pass, a restart keeps it, and it replaces --notification-url for the tenant. URLs an earlier version \
        kept in tenants/<tenant>.notification-urls.json are moved into storage when `storekit serve` starts, and \
        the file renamed *.imported.

        With --server URL (or $OPENSTOREKIT_SERVER) these commands act through a running server's control API; \
        without, on the storage itself — the data directory's database, or --database —, which every server on it \
        reads from its next pass, so URLs can be set before `storekit serve` starts. --tenant picks the tenant. \
        Without a subcommand, `storekit notifications url` shows the URLs.

        Example:
          storekit notifications url --server http://127.0.0.1:8080
          storekit notifications url set http://127.0.0.1:9000/apple --data-dir .storekit
          storekit notifications url set http://127.0.0.1:9000/apple --server http://127.0.0.1:8080
          storekit notifications url set https://example.com/apple --bundle-id com.example.demo --tenant qa-1
          storekit notifications url clear --server http://127.0.0.1:8080
        """,
        subcommands: [NotificationURLShowCommand.self, NotificationURLSetCommand.self, NotificationURLClearCommand.self],
        defaultSubcommand: NotificationURLShowCommand.self
    )
}

/// The options the `storekit notifications url` subcommands share: the store — a running server's tenant, or one in
/// the data directory or `--database` — and how to print.
struct NotificationURLOptions: ParsableArguments {
    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Flag(help: #"Print the URLs as one JSON object: {"defaultURL": …, "urlsByBundleID": {…}}."#)
    var json = false

    /// Where the tenant's notifications go now. A running server answers with what it sends by (its
    /// `--notification-url` while the tenant stored none); the storage, with what the tenant stored.
    func destinations() async throws -> NotificationDestinations {
        if let server = try remote.serverControl(location: location) { return try await server.notificationURLs() }
        return try await location.openStore().notificationDestinations() ?? NotificationDestinations()
    }

    /// Sends the notifications of the app `bundleID` (of every app without a URL of its own when it is `nil`) to
    /// `url`, or to nowhere for `nil`; the destinations afterwards.
    func setURL(_ url: URL?, bundleID: String?) async throws -> NotificationDestinations {
        if let server = try remote.serverControl(location: location) { return try await server.setNotificationURL(url, bundleID: bundleID) }
        let store = try location.openStore()
        var destinations = try await store.notificationDestinations() ?? NotificationDestinations()
        if let bundleID { destinations.urlsByBundleID[bundleID] = url } else { destinations.defaultURL = url }
        try await store.setNotificationDestinations(destinations)
        return destinations
    }

    /// Prints the destinations, after `heading` for people.
    func show(_ destinations: NotificationDestinations, heading: String) throws {
        if json {
            try printJSON(destinations)
            return
        }
        let place = try remote.serverURL() != nil ? try remote.place(location: location)
            : location.database.map { _ in "the database given with --database" } ?? location.directory.url.path
        print("\(heading) (store \"\(location.resolvedTenant)\" on \(place)):")
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
        abstract: "Show where each app's notifications are sent.",
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
        try options.show(try await options.destinations(), heading: "Notifications are sent to")
    }
}

/// `storekit notifications url set`: sends notifications to a URL.
struct NotificationURLSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Send a store's notifications to a URL: every app's, or one app's with --bundle-id.",
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
        let destinations = try await options.setURL(try parsedURL(), bundleID: bundleID)
        try options.show(destinations, heading: "Notifications \(bundleID.map { "of \($0) " } ?? "")are now sent to \(url); all URLs")
    }
}

/// `storekit notifications url clear`: stops sending notifications.
struct NotificationURLClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Stop sending a store's notifications: every app's URL, or one app's with --bundle-id.",
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
        let destinations = try await options.setURL(nil, bundleID: bundleID)
        try options.show(destinations, heading: bundleID.map { "\($0) has no URL of its own now; all URLs" } ?? "Every app's URL is removed; all URLs")
    }
}
