import AppStoreEngine
import AppStoreFormats
import AppStoreHosting
import AppStoreServer
import ArgumentParser
import Foundation

/// `storekit tx …`: the transaction manager, on the data directory's store or a running server's.
struct TransactionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tx",
        abstract: "See and change the store's transactions: list, show, refund, approve, renew, expire, delete …",
        discussion: """
        What Xcode's transaction manager and the web transaction manager do, from the terminal. Every subcommand \
        acts on the store in the data directory (--data-dir, --tenant), or with --server URL on a running \
        `storekit serve` through its control API, so apps connected to it see the change at once. Actions on \
        subscriptions (renew, expire, auto-renew, price-consent) take any transaction of the subscription.

        Without a subcommand, `storekit tx` lists the transactions.

        Example:
          storekit tx list --account alice
          storekit tx show 2000000000000001 --json
          storekit tx refund 2000000000000001 --reason app-issue
          storekit tx approve 2000000000000002 --server http://127.0.0.1:8080
          storekit tx renew 2000000000000003 --config Examples/Demo.storekit
        """,
        subcommands: [
            TransactionListCommand.self,
            TransactionShowCommand.self,
            RefundCommand.self,
            ApproveCommand.self,
            DeclineCommand.self,
            ResolveCommand.self,
            ExpireCommand.self,
            RenewCommand.self,
            AutoRenewCommand.self,
            PriceConsentCommand.self,
            DeleteCommand.self,
            ClearCommand.self,
        ],
        defaultSubcommand: TransactionListCommand.self
    )
}

/// `storekit tx list`: lists what the store recorded.
struct TransactionListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the store's transactions, oldest first; filter by account, app, product or state.",
        discussion: """
        One line per transaction: identifier, product, state, date, amount, account; renewals, restores and offers \
        say so, refunds show their date. --json prints the control API's transaction objects, each with its \
        signedTransaction when it was signed.

        --state purchased lists completed purchases (refunded ones too); refunded lists only refunded or revoked \
        ones; pending-approval, declined, interrupted and failed list the purchases that did not complete.

        Example:
          storekit tx list
          storekit tx list --account alice --json
          storekit tx list --product com.example.demo.plus.monthly --state refunded
          storekit tx list --server http://127.0.0.1:8080 --tenant checkout-42
        """
    )

    /// Which transactions `--state` keeps.
    enum StateFilter: String, ExpressibleByArgument, CaseIterable {
        case purchased, refunded, pendingApproval = "pending-approval", declined, interrupted, failed

        /// Whether a transaction is in this state.
        func matches(_ transaction: TransactionSummary) -> Bool {
            switch self {
            case .refunded: transaction.revocationDate != nil
            case .failed: transaction.state.hasPrefix("failed")
            default: transaction.state == rawValue
            }
        }
    }

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Option(help: ArgumentHelp("Only this account's transactions.", valueName: "name"))
    var account: String?

    @Option(name: .customLong("bundle-id"), help: ArgumentHelp("Only this app's transactions.", valueName: "id"))
    var bundleID: String?

    @Option(help: ArgumentHelp("Only this product's transactions.", valueName: "id"))
    var product: String?

    @Option(help: ArgumentHelp("Only transactions in this state: \(StateFilter.allValueStrings.joined(separator: ", ")).", valueName: "state"))
    var state: StateFilter?

    @Flag(help: "Print a JSON array.")
    var json = false

    func run() async throws {
        let store = try remote.control(location: location) { nil }
        let outputs = try await store.transactions(TransactionQuery(accountID: account, bundleID: bundleID, productID: product))
            .filter { (product == nil || $0.productId == product) && (state?.matches($0) ?? true) }
        if json {
            try printJSON(outputs)
        } else if outputs.isEmpty {
            let filtered = account != nil || bundleID != nil || product != nil || state != nil
            print("No \(filtered ? "matching " : "")transactions in \(try remote.place(location: location)) (store \"\(location.resolvedTenant)\").")
        } else {
            outputs.forEach { print($0.line) }
        }
    }
}

/// `storekit tx show`: one transaction in full, and the subscription it belongs to.
struct TransactionShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one transaction in full and, for a subscription, its renewal state.",
        discussion: """
        --json prints the control API's transaction object, with its signedTransaction (the JWS an app receives; \
        decode it with `storekit jws decode`), and for an auto-renewable subscription a "subscription" object with \
        Apple's renewal-info names (status, autoRenewStatus, expiresDate, expirationIntent, …), as \
        `storekit subscriptions --json` prints it.

        Give --config to apply the renewals and expiries due on the store's clock first (not needed with --server).

        Example:
          storekit tx show 2000000000000001
          storekit tx show 2000000000000001 --json | jq -r .signedTransaction
          storekit tx show 2000000000000001 --server http://127.0.0.1:8080
        """
    )

    @Argument(help: ArgumentHelp("The transaction identifier, as `storekit tx list` prints it.", valueName: "id"))
    var transactionID: String

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Option(help: ArgumentHelp("The .storekit file, so due renewals are applied before showing.", valueName: "file"))
    var config: String?

    @Flag(help: "Print one JSON object.")
    var json = false

    func validate() throws {
        _ = try parseTransactionID(transactionID)
    }

    func run() async throws {
        let store = try remote.control(location: location) { try config.map(loadConfiguration) }
        let transaction = try await store.transaction(try parseTransactionID(transactionID))
        let subscription = try await store.subscription(of: transaction).map(SubscriptionOutput.init)
        let detail = TransactionDetail(transaction: transaction, subscription: subscription)
        if json { try printJSON(detail) } else { detail.lines.forEach { print($0) } }
    }
}

/// A transaction as `storekit tx show` prints it: the control API's object, plus its subscription.
struct TransactionDetail: Encodable {
    /// The transaction, as the control API answers it.
    var transaction: TransactionSummary
    /// The subscription it belongs to, for an auto-renewable subscription.
    var subscription: SubscriptionOutput?

    private enum Key: String, CodingKey { case subscription }

    /// The transaction's members, then `subscription`, in one object.
    func encode(to encoder: any Encoder) throws {
        try transaction.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(subscription, forKey: .subscription)
    }

    /// The lines for people.
    var lines: [String] {
        let t = transaction
        var lines = [
            "transaction \(t.transactionId)",
            "  product:      \(t.productId) (\(t.type))",
            "  app:          \(t.bundleId)",
            "  account:      \(t.account)",
            "  state:        \(t.state)",
            "  origin:       \(t.origin)\(t.originalTransactionId == t.transactionId ? "" : " of \(t.originalTransactionId)")",
            "  purchased:    \(t.purchaseDate)",
        ]
        if let expires = t.expiresDate { lines.append("  expires:      \(expires)") }
        lines.append("  charged:      \(t.amountCharged) \(t.currency)\(t.quantity > 1 ? " for \(t.quantity) × \(t.price)" : "") in storefront \(t.storefront)")
        if let offer = t.offerDiscountType {
            lines.append("  offer:        \(t.offerIdentifier.map { "\($0), " } ?? "")\(offer) (offerType \(t.offerType.map(String.init) ?? "?"))")
        }
        if let revoked = t.revocationDate {
            lines.append("  refunded:     \(revoked) (revocationReason \(t.revocationReason.map(String.init) ?? "?"))")
        }
        lines.append("  order:        \(t.orderId)")
        lines.append("  signed:       \(t.signedTransaction == nil ? "no (not completed)" : "yes; --json prints signedTransaction")")
        if let subscription {
            lines.append("subscription \(subscription.originalTransactionId) (group \(subscription.groupId))")
            lines.append(contentsOf: subscription.detailLines.map { "  \($0)" })
        }
        return lines
    }
}

/// `storekit tx refund`: refunds a transaction, as a customer's approved refund request would.
struct RefundCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refund",
        abstract: "Refund a transaction now; a non-consumable's restores are revoked with it.",
        discussion: """
        The app sees the transaction revoked (Transaction.updates, revocationDate) and its server receives a REFUND \
        notification.

        Example:
          storekit tx refund 2000000000000001
          storekit tx refund 2000000000000001 --reason app-issue
          storekit tx refund 2000000000000001 --server http://127.0.0.1:8080
        """
    )

    /// Why the refund was given.
    enum Reason: String, ExpressibleByArgument, CaseIterable {
        case other, appIssue = "app-issue"
    }

    @Argument(help: ArgumentHelp("The transaction identifier.", valueName: "id"))
    var transactionID: String

    @Option(help: "Why: other (default) or app-issue (Apple's revocationReason 0 or 1).")
    var reason: Reason = .other

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    func validate() throws {
        _ = try parseTransactionID(transactionID)
    }

    func run() async throws {
        let store = try remote.control(location: location) { nil }
        let revoked = try await store.refund(
            try parseTransactionID(transactionID), reason: reason == .appIssue ? .refundedDueToIssue : .refundedForOtherReason
        )
        revoked.forEach { print("refunded \($0.line)") }
    }
}

/// `storekit tx delete`: removes a transaction as if it never happened.
struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a transaction and the restores derived from it (a test control, not a refund).",
        discussion: """
        Example:
          storekit tx delete 2000000000000001
          storekit tx delete 2000000000000001 --tenant scenario-1
        """
    )

    @Argument(help: ArgumentHelp("The transaction identifier.", valueName: "id"))
    var transactionID: String

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    func validate() throws {
        _ = try parseTransactionID(transactionID)
    }

    func run() async throws {
        let deleted = try await remote.control(location: location) { nil }.delete(try parseTransactionID(transactionID))
        print("deleted \(deleted.map(String.init).joined(separator: ", "))")
    }
}

/// `storekit tx clear`: deletes every transaction of the store.
struct ClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Delete every transaction of the store; receipts become empty.",
        discussion: """
        Accounts and certificates are kept. Example:
          storekit tx clear --data-dir /tmp/store
          storekit tx clear --server http://127.0.0.1:8080 --tenant checkout-42
        """
    )

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    func run() async throws {
        try await remote.control(location: location) { nil }.clear()
        let place = try remote.serverURL().map { "on the server at \($0.absoluteString)" } ?? "in \(location.directory.url.path)"
        print("cleared all transactions of store \"\(location.resolvedTenant)\" \(place)")
    }
}

/// The transaction commands' former top-level names (`storekit refund`, `storekit transactions`, …), hidden from help:
/// using one says which `storekit tx` subcommand replaced it, instead of a bare "unexpected argument".
struct MovedTransactionCommand: ParsableCommand {
    /// Each former name, and the `storekit tx` subcommand that replaced it.
    static let replacements = [
        "transactions": "list", "refund": "refund", "approve": "approve", "decline": "decline", "resolve": "resolve",
        "renew": "renew", "expire": "expire", "auto-renew": "auto-renew", "price-consent": "price-consent",
        "delete": "delete", "clear": "clear",
    ]

    static let configuration = CommandConfiguration(
        commandName: "transactions",
        abstract: "Moved: the transaction commands are `storekit tx` subcommands.",
        shouldDisplay: false,
        aliases: replacements.keys.filter { $0 != "transactions" }.sorted()
    )

    @Argument(parsing: .allUnrecognized, help: "Ignored.")
    var arguments: [String] = []

    func run() throws {
        let name = CommandLine.arguments.dropFirst().first { Self.replacements[$0] != nil } ?? "transactions"
        let replacement = Self.replacements[name] ?? "list"
        throw ValidationError("`storekit \(name)` is now `storekit tx \(replacement)`, with the same arguments and options. `storekit tx --help` lists the transaction commands.")
    }
}
