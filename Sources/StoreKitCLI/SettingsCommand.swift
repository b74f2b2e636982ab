import AppStoreEngine
import ArgumentParser
import Foundation

/// `storekit settings …`: a running store's test switches, as `SKTestSession`'s properties and the control API set them.
struct SettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Show or change a running store's test switches: Ask to Buy, failures, billing issues, storefront …",
        discussion: """
        Settings belong to a running store: `storekit serve` starts each tenant with the .storekit file's settings \
        and keeps changes until it stops. The data directory keeps none, so these commands need --server URL (or \
        $OPENSTOREKIT_SERVER); the other commands, run without --server, use the settings of the .storekit file \
        given to them (`storekit config show FILE` lists them).

        Without a subcommand, `storekit settings` shows the settings.

        Example:
          storekit settings --server http://127.0.0.1:8080
          storekit settings set --ask-to-buy on --server http://127.0.0.1:8080
          export OPENSTOREKIT_SERVER=http://127.0.0.1:8080
          storekit settings set --billing-issues on --grace-period on --tenant qa-1
        """,
        subcommands: [SettingsShowCommand.self, SettingsSetCommand.self],
        defaultSubcommand: SettingsShowCommand.self
    )
}

/// The options the `storekit settings` subcommands share: the running server, and its tenant.
struct SettingsStoreOptions: ParsableArguments {
    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    func validate() throws {
        _ = try server()
    }

    /// The running server's store; without `--server`, an error that says why one is needed.
    func server() throws -> ServerControl {
        guard let server = try remote.serverControl(location: location) else {
            throw ValidationError("""
                Settings belong to a running store, and no server was given. Give --server URL (or set \
                OPENSTOREKIT_SERVER) to see or change the settings of a running `storekit serve`; without a server, \
                commands use the settings of the .storekit file given with --config (see `storekit config show FILE`).
                """)
        }
        return server
    }
}

/// `storekit settings show`: the running store's settings.
struct SettingsShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a running store's settings: storefront, locale and every test switch.",
        discussion: """
        --json prints the control API's settings object (GET /control/settings).

        Example:
          storekit settings show --server http://127.0.0.1:8080
          storekit settings show --server http://127.0.0.1:8080 --tenant qa-1 --json
        """
    )

    @OptionGroup var options: SettingsStoreOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        let settings = try await options.server().settings()
        if json {
            try printJSON(settings)
        } else {
            print("Store \"\(options.location.resolvedTenant)\" on \(try options.remote.place(location: options.location)):")
            settings.lines.forEach { print("  \($0)") }
        }
    }
}

/// `storekit settings set`: changes a running store's switches.
struct SettingsSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change a running store's test switches; the ones not given stay as they are.",
        discussion: """
        The switches are Xcode's StoreKit testing settings (and SKTestSession's properties): Ask to Buy makes \
        purchases wait for `storekit tx approve`; interrupted purchases wait for `storekit tx resolve`; failing \
        transactions makes every purchase fail with the error code given; billing issues make renewals fail into \
        billing retry, with a grace period first if that is on; the renewal limit stops a subscription after N \
        renewals, as Apple's sandbox does after 12 (0 removes the limit). The new settings are printed.

        Example:
          storekit settings set --ask-to-buy on --server http://127.0.0.1:8080
          export OPENSTOREKIT_SERVER=http://127.0.0.1:8080
          storekit settings set --fail-transactions on --failure-error-code 2
          storekit settings set --storefront FRA --locale fr_FR --renewal-limit 12
        """
    )

    /// A switch on the command line.
    enum Switch: String, ExpressibleByArgument, CaseIterable {
        case on, off

        var isOn: Bool { self == .on }
    }

    @OptionGroup var options: SettingsStoreOptions

    @Option(name: .customLong("ask-to-buy"), help: "Ask to Buy: purchases wait for a parent's approval (on or off).")
    var askToBuy: Switch?

    @Option(name: .customLong("interrupted-purchases"), help: "Interrupted purchases: purchases wait for a billing fix (on or off).")
    var interruptedPurchases: Switch?

    @Option(name: .customLong("fail-transactions"), help: "Every purchase fails with the failure error code (on or off).")
    var failTransactions: Switch?

    @Option(name: .customLong("failure-error-code"), help: ArgumentHelp("The SKError code failed purchases report, e.g. 2 (paymentCancelled).", valueName: "code"))
    var failureErrorCode: Int?

    @Option(name: .customLong("billing-issues"), help: "Renewals fail and enter billing retry (on or off).")
    var billingIssues: Switch?

    @Option(name: .customLong("grace-period"), help: "Billing retry starts with a grace period (on or off).")
    var gracePeriod: Switch?

    @Option(name: .customLong("renewal-limit"), help: ArgumentHelp("How many times a subscription may renew; 0 for no limit.", valueName: "n"))
    var renewalLimit: Int?

    @Option(help: ArgumentHelp("The storefront new accounts buy in (ISO 3166-1 alpha-3, e.g. FRA).", valueName: "code"))
    var storefront: String?

    @Option(help: ArgumentHelp("The locale product names are shown in, e.g. fr_FR.", valueName: "locale"))
    var locale: String?

    @Flag(help: "Print the settings afterwards as one JSON object.")
    var json = false

    /// The control API's body: the switches given, by their field names.
    var changes: [String: Any] {
        var body: [String: Any] = [:]
        body["askToBuyEnabled"] = askToBuy?.isOn
        body["interruptedPurchasesEnabled"] = interruptedPurchases?.isOn
        body["failTransactionsEnabled"] = failTransactions?.isOn
        body["failureErrorCode"] = failureErrorCode
        body["renewalBillingIssuesEnabled"] = billingIssues?.isOn
        body["billingGracePeriodEnabled"] = gracePeriod?.isOn
        body["renewalLimit"] = renewalLimit
        body["storefront"] = storefront
        body["locale"] = locale
        return body
    }

    func validate() throws {
        if changes.isEmpty {
            throw ValidationError("Nothing to change: give at least one setting, e.g. --ask-to-buy on. `storekit settings set --help` lists them.")
        }
        if let failureErrorCode, failureErrorCode < 0 {
            throw ValidationError("--failure-error-code \(failureErrorCode) is not an SKError code; they are 0 or more, e.g. 2 for paymentCancelled.")
        }
        if let renewalLimit, renewalLimit < 0 {
            throw ValidationError("--renewal-limit \(renewalLimit) is negative. Give how many renewals a subscription may have, or 0 for no limit.")
        }
    }

    func run() async throws {
        let settings = try await options.server().updateSettings(changes)
        if json {
            try printJSON(settings)
        } else {
            print("Store \"\(options.location.resolvedTenant)\" on \(try options.remote.place(location: options.location)) now has:")
            settings.lines.forEach { print("  \($0)") }
        }
    }
}

extension StoreSettings {
    /// The settings for people, one per line.
    var lines: [String] {
        func text(_ value: Bool) -> String { value ? "on" : "off" }
        return [
            "storefront:             \(storefront)",
            "locale:                 \(locale)",
            "environment:            \(environment)",
            "ask to buy:             \(text(askToBuyEnabled))",
            "interrupted purchases:  \(text(interruptedPurchasesEnabled))",
            "fail transactions:      \(text(failTransactionsEnabled)) (error code \(failureErrorCode))",
            "billing issues:         \(text(renewalBillingIssuesEnabled))",
            "grace period:           \(text(billingGracePeriodEnabled))",
            "renewal limit:          \(renewalLimit.map(String.init) ?? "none")",
            "time rate:              \(TimeRateArgument.name(of: timeRate)) (change it with `storekit clock rate`)",
        ]
    }
}
