import AppStoreEngine
import AppStoreServer
import ArgumentParser
import Foundation

/// `storekit family …`: Family Sharing — accounts joining and leaving a family, and the purchases that follow them.
struct FamilyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "family",
        abstract: "Put an account in a Family Sharing group, or take it out: family-shareable purchases follow it.",
        discussion: """
        A family is a name the accounts in it share. When an account joins, the family's active purchases of \
        family-shareable products (non-consumables, and the current period of auto-renewable subscriptions, whose \
        products say `familyShareable` in the .storekit file) are shared with it at once, and its own with the \
        family: each share is a transaction of its own, with origin familyShare and nothing charged. When it \
        leaves, what was shared with it and by it is revoked now, and app servers receive REVOKE.

        What the transaction manager page's Family Sharing form does. Each subcommand acts on the data \
        directory's store (with --config, since sharing depends on the products) or with --server URL on a \
        running `storekit serve`.

        Example:
          storekit family join bob smiths --config Examples/Demo.storekit
          storekit family leave bob --config Examples/Demo.storekit
          storekit family join bob smiths --server http://127.0.0.1:8080 --json
          storekit family rescind-consent kid --bundle-id com.example.demo --server http://127.0.0.1:8080
        """,
        subcommands: [FamilyJoinCommand.self, FamilyLeaveCommand.self, FamilyRescindConsentCommand.self]
    )
}

/// The options the `storekit family` subcommands share: the store, and how to print.
struct FamilyStoreOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The .storekit file that lists the products, so the store knows which are family-shareable (not needed with --server).",
        valueName: "file"
    ))
    var config: String?

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Flag(help: "Print one JSON object, with each transaction as `storekit tx show --json` prints it.")
    var json = false

    /// The store to act on.
    func control() async throws -> any StoreControl {
        try await remote.control(location: location, config: config, why: "it sells to know which products are family-shareable")
    }
}

/// `storekit family join`: an account joins a family.
struct FamilyJoinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Put an account in a family: the family's shareable purchases are shared with it, and its own with the family.",
        discussion: """
        Prints each transaction the join made, one line each (`familyShare of` the purchase it shares). An account \
        in another family leaves that one first, which revokes what it shared there. Joining the family an account \
        is already in changes nothing. --json prints {"account", "family", "shared": [transactions]}; the control \
        API's POST /control/families/{family}/members does the same.

        Example:
          storekit family join bob smiths --config Examples/Demo.storekit
          storekit family join bob smiths --server http://127.0.0.1:8080 --tenant qa-1
          storekit tx list --account bob --config Examples/Demo.storekit
        """
    )

    @Argument(help: ArgumentHelp("The account (Apple ID) that joins, as --account names it elsewhere.", valueName: "account"))
    var account: String

    @Argument(help: ArgumentHelp("The family's name; accounts that join the same name are one family.", valueName: "family"))
    var family: String

    @OptionGroup var options: FamilyStoreOptions

    /// What `--json` prints.
    private struct Output: Encodable {
        var account: String
        var family: String
        var shared: [TransactionSummary]
    }

    func validate() throws {
        if account.isEmpty { throw ValidationError("The account is empty. Name the account that joins, e.g. `storekit family join bob smiths`.") }
        if family.isEmpty { throw ValidationError("The family is empty. Name the family to join, e.g. `storekit family join bob smiths`.") }
    }

    func run() async throws {
        let shared = try await options.control().joinFamily(accountID: account, familyID: family)
        if options.json {
            try printJSON(Output(account: account, family: family, shared: shared))
        } else if shared.isEmpty {
            print("\(account) is in family \"\(family)\"; nothing to share: no active family-shareable purchase of the family that \(account) lacks, and none of \(account)'s own.")
        } else {
            print("\(account) is in family \"\(family)\"; shared \(shared.count) transaction\(shared.count == 1 ? "" : "s"):")
            shared.forEach { print("  \($0.line)") }
        }
    }
}

/// `storekit family leave`: an account leaves its family.
struct FamilyLeaveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "leave",
        abstract: "Take an account out of its family: what was shared with it and by it is revoked now.",
        discussion: """
        Prints each transaction revoked: the shares the account held, and the shares of its own purchases that the \
        other members held. Apps see them revoked (revocationDate, Transaction.updates) and app servers receive \
        REVOKE. An account in no family changes nothing. --json prints {"account", "revoked": [transactions]}; the \
        control API's DELETE /control/families/members/{account} does the same.

        Example:
          storekit family leave bob --config Examples/Demo.storekit
          storekit family leave bob --server http://127.0.0.1:8080 --json
        """
    )

    @Argument(help: ArgumentHelp("The account (Apple ID) that leaves its family.", valueName: "account"))
    var account: String

    @OptionGroup var options: FamilyStoreOptions

    /// What `--json` prints.
    private struct Output: Encodable {
        var account: String
        var revoked: [TransactionSummary]
    }

    func validate() throws {
        if account.isEmpty { throw ValidationError("The account is empty. Name the account that leaves, e.g. `storekit family leave bob`.") }
    }

    func run() async throws {
        let revoked = try await options.control().leaveFamily(accountID: account)
        if options.json {
            try printJSON(Output(account: account, revoked: revoked))
        } else if revoked.isEmpty {
            print("\(account) is in no family now; nothing was shared with it or by it, so nothing was revoked.")
        } else {
            print("\(account) is in no family now; revoked \(revoked.count) transaction\(revoked.count == 1 ? "" : "s"):")
            revoked.forEach { print("  \($0.line)") }
        }
    }
}

/// `storekit family rescind-consent`: a parent withdraws consent for a child's use of an app.
struct FamilyRescindConsentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rescind-consent",
        abstract: "A parent or guardian withdraws consent for a child's use of an app: its server gets RESCIND_CONSENT.",
        discussion: """
        The app's server receives RESCIND_CONSENT, whose appData carries the child's signed app transaction (its \
        appTransactionId names the child), as Apple sends it when a parent withdraws consent through Declared Age \
        Range. Prints the notification; --json prints it as the control API does (POST /control/rescind-consent).

        Example:
          storekit family rescind-consent kid --bundle-id com.example.demo
          storekit family rescind-consent kid --bundle-id com.example.demo --server http://127.0.0.1:8080 --json
        """
    )

    @Argument(help: ArgumentHelp("The child's account (Apple ID).", valueName: "account"))
    var account: String

    @Option(name: .customLong("bundle-id"), help: ArgumentHelp("The app the consent was for.", valueName: "id"))
    var bundleID: String = StoreDefaults.bundleID

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Flag(help: "Print the notification as one JSON object.")
    var json = false

    func validate() throws {
        if account.isEmpty { throw ValidationError("The account is empty. Name the child's account, e.g. `storekit family rescind-consent kid`.") }
        if bundleID.isEmpty { throw ValidationError("--bundle-id is empty. Give the app's bundle identifier, e.g. com.example.demo.") }
    }

    func run() async throws {
        let notification = try await remote.control(location: location) { nil }.rescindConsent(accountID: account, bundleID: bundleID)
        if json {
            try printJSON(notification)
        } else {
            print("\(bundleID)'s server is told that consent for \(account) was withdrawn: \(notification.notificationType) \(notification.notificationUUID), \(notification.delivery).")
        }
    }
}
