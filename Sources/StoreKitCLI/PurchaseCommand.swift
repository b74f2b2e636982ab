import AppStoreServer
import AppStoreEngine
import ArgumentParser
import Foundation
import AppStoreFormats
import AppStoreHosting

/// `storekit purchase`: buys a product in the embedded store.
struct PurchaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purchase",
        abstract: "Buy a product in the embedded store and print the transaction.",
        discussion: """
        With --json the output includes `signedTransaction`, the JWS Apple's libraries verify given the root \
        from `storekit ca export`.

        The purchase is stored in the data directory at once, so it survives the process and shows in \
        `storekit transactions`, in a running `storekit serve` and in apps that use the same directory.

        Example:
          storekit purchase com.example.demo.premium --config Examples/Demo.storekit --json
          storekit purchase com.example.demo.coins.100 --config Examples/Demo.storekit --quantity 3 --account alice
          storekit purchase com.example.demo.premium --server http://127.0.0.1:8080 --tenant checkout-42
        """
    )

    @Argument(help: "The product identifier to buy.")
    var productID: String

    @Option(help: ArgumentHelp("The .storekit file that lists the products (not needed with --server).", valueName: "file"))
    var config: String?

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Option(name: .customLong("bundle-id"), help: ArgumentHelp("The app the purchase is for.", valueName: "id"))
    var bundleID: String = environmentBundleID

    @Option(help: ArgumentHelp("The buying account (Apple ID).", valueName: "name"))
    var account: String = StoreDefaults.accountID

    @Option(help: "How many to buy (1 to 10).")
    var quantity: Int = 1

    @Flag(help: "Print the transaction as one JSON object.")
    var json = false

    func validate() throws {
        if config == nil, try remote.serverURL() == nil {
            throw ValidationError("Missing --config: the store in the data directory needs the .storekit file it sells. Or buy on a running server with --server URL.")
        }
    }

    func run() async throws {
        let store = try remote.control(location: location) { try config.map(loadConfiguration) }
        let output = try await store.purchase(
            PurchaseRequest(productID: productID, accountID: account, bundleID: bundleID, quantity: quantity)
        )
        if json { try printJSON(output) } else { print(output.line) }
    }
}

/// `storekit transactions`: lists what the embedded store recorded.
struct TransactionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transactions",
        abstract: "List the transactions in the embedded store, oldest first.",
        discussion: """
        Example:
          storekit transactions
          storekit transactions --account alice --json
        """
    )

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Option(help: ArgumentHelp("Only this account's transactions.", valueName: "name"))
    var account: String?

    @Option(name: .customLong("bundle-id"), help: ArgumentHelp("Only this app's transactions.", valueName: "id"))
    var bundleID: String?

    @Flag(help: "Print a JSON array.")
    var json = false

    func run() async throws {
        let store = try remote.control(location: location) { nil }
        let outputs = try await store.transactions(TransactionQuery(accountID: account, bundleID: bundleID))
        if json {
            try printJSON(outputs)
        } else if outputs.isEmpty {
            let place = try remote.serverURL().map { "the server at \($0.absoluteString)" } ?? location.directory.url.path
            print("No transactions in \(place) (store \"\(location.resolvedTenant)\").")
        } else {
            outputs.forEach { print($0.line) }
        }
    }
}

/// `storekit refund`: refunds a transaction, as a customer's approved refund request would.
struct RefundCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refund",
        abstract: "Refund a transaction now; a non-consumable's restores are revoked with it.",
        discussion: """
        Example:
          storekit refund 2000000000000001
          storekit refund 2000000000000001 --reason app-issue
        """
    )

    /// Why the refund was given.
    enum Reason: String, ExpressibleByArgument, CaseIterable {
        case other, appIssue = "app-issue"
    }

    @Argument(help: "The transaction identifier.")
    var transactionID: String

    @Option(help: "Why: other (default) or app-issue (Apple's revocationReason 0 or 1).")
    var reason: Reason = .other

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    func run() async throws {
        let store = try remote.control(location: location) { nil }
        let revoked = try await store.refund(
            try parseTransactionID(transactionID), reason: reason == .appIssue ? .refundedDueToIssue : .refundedForOtherReason
        )
        revoked.forEach { print("refunded \($0.line)") }
    }
}

/// `storekit delete`: removes a transaction as if it never happened.
struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a transaction and the restores derived from it (a test control, not a refund).",
        discussion: """
        Example:
          storekit delete 2000000000000001
        """
    )

    @Argument(help: "The transaction identifier.")
    var transactionID: String

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    func run() async throws {
        let deleted = try await remote.control(location: location) { nil }.delete(try parseTransactionID(transactionID))
        print("deleted \(deleted.map(String.init).joined(separator: ", "))")
    }
}

/// `storekit clear`: deletes every transaction of the store.
struct ClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Delete every transaction of the store; receipts become empty.",
        discussion: """
        Accounts and certificates are kept. Example:
          storekit clear --data-dir /tmp/store
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
