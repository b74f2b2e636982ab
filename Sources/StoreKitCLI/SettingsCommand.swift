import AppStoreEngine
import AppStoreHosting
import ArgumentParser
import Foundation

/// `storekit settings …`: a store's test switches, as `SKTestSession`'s properties and the control API set them.
struct SettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Show or change a store's test switches: Ask to Buy, failures, billing issues, storefront …",
        discussion: """
        Settings belong to the store (tenant) and live in its storage: the data directory's database, or the \
        PostgreSQL database of --database. A tenant whose settings were never changed runs with the settings of \
        the .storekit file it is opened with; once changed — here, through the control API, the transaction \
        manager or SKTestSession — the stored settings win over the file's, in every `storekit serve` and command \
        on that storage, from their next operation and after a restart. `storekit tenants reset` goes back to the \
        file's settings.

        With --server URL (or $OPENSTOREKIT_SERVER) the commands act on a running server's tenant; without, on \
        the data directory (or --database), where --config FILE names the .storekit file a never-changed tenant's \
        settings come from (the defaults without it).

        Without a subcommand, `storekit settings` shows the settings.

        Example:
          storekit settings --server http://127.0.0.1:8080
          storekit settings set --ask-to-buy on --server http://127.0.0.1:8080
          storekit settings set --ask-to-buy on --data-dir ./store --config Examples/Demo.storekit
          export OPENSTOREKIT_SERVER=http://127.0.0.1:8080
          storekit settings set --billing-issues on --grace-period on --tenant qa-1
        """,
        subcommands: [SettingsShowCommand.self, SettingsSetCommand.self],
        defaultSubcommand: SettingsShowCommand.self
    )
}

/// The options the `storekit settings` subcommands share: the store — a running server's tenant, or one in the data
/// directory or `--database` — and the configuration a store opened here starts from.
struct SettingsStoreOptions: ParsableArguments {
    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Option(help: ArgumentHelp(
        "The .storekit file whose settings a tenant never changed runs with (without --server).",
        discussion: "Without it, such a tenant shows, and changes start from, the default settings.",
        valueName: "file"
    ))
    var config: String?

    func validate() throws {
        if config != nil, try remote.serverURL() != nil {
            throw ValidationError("--config is for a store opened here; a running server opened its tenants with their configuration. Leave out --config or --server.")
        }
    }

    /// The store's settings now.
    func settings() async throws -> StoreSettings {
        if let server = try remote.serverControl(location: location) { return try await server.settings() }
        return try await openStore().currentSettings()
    }

    /// Makes `change` to the store's settings; the settings afterwards.
    func update(_ change: SettingsChange) async throws -> StoreSettings {
        if let server = try remote.serverControl(location: location) { return try await server.updateSettings(change.body) }
        let store = try openStore()
        try await store.updateSettings { change.apply(to: &$0) }
        return await store.settings
    }

    /// Where the store is, for messages.
    func place() throws -> String {
        if try remote.serverURL() != nil { return try remote.place(location: location) }
        return location.database.map { _ in "the database given with --database" } ?? location.directory.url.path
    }

    private func openStore() throws -> StoreEngine {
        try location.openStore(configuration: try config.map(loadConfiguration))
    }
}

/// The switches `storekit settings set` was given, as the control API's body or applied to settings in place.
struct SettingsChange: Sendable {
    var askToBuy: Bool?
    var interruptedPurchases: Bool?
    var failTransactions: Bool?
    var failureErrorCode: Int?
    var billingIssues: Bool?
    var gracePeriod: Bool?
    /// How many renewals a subscription may have; 0 for no limit.
    var renewalLimit: Int?
    var storefront: String?
    var locale: String?
    /// The environment the store signs as: Sandbox, Production or Xcode.
    var environment: String?
    /// Whether refund requests wait for a decision.
    var refundRequestsAwaitDecision: Bool?

    /// The control API's body (`PUT /control/settings`): the switches given, by their field names.
    var body: [String: Any] {
        var body: [String: Any] = [:]
        body["askToBuyEnabled"] = askToBuy
        body["interruptedPurchasesEnabled"] = interruptedPurchases
        body["failTransactionsEnabled"] = failTransactions
        body["failureErrorCode"] = failureErrorCode
        body["renewalBillingIssuesEnabled"] = billingIssues
        body["billingGracePeriodEnabled"] = gracePeriod
        body["renewalLimit"] = renewalLimit
        body["storefront"] = storefront
        body["locale"] = locale
        body["environment"] = environment
        body["refundRequestsAwaitDecision"] = refundRequestsAwaitDecision
        return body
    }

    /// Sets the switches given in `settings`, as the control API does with its body.
    func apply(to settings: inout StoreSettings) {
        if let askToBuy { settings.askToBuyEnabled = askToBuy }
        if let interruptedPurchases { settings.interruptedPurchasesEnabled = interruptedPurchases }
        if let failTransactions { settings.failTransactionsEnabled = failTransactions }
        if let failureErrorCode { settings.failureErrorCode = failureErrorCode }
        if let billingIssues { settings.renewalBillingIssuesEnabled = billingIssues }
        if let gracePeriod { settings.billingGracePeriodEnabled = gracePeriod }
        if let renewalLimit { settings.renewalLimit = renewalLimit > 0 ? renewalLimit : nil }
        if let storefront { settings.storefront = storefront }
        if let locale { settings.locale = locale }
        if let environment { settings.environment = environment }
        if let refundRequestsAwaitDecision { settings.refundRequestsAwaitDecision = refundRequestsAwaitDecision }
    }
}

/// `storekit settings show`: the running store's settings.
struct SettingsShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a store's settings: storefront, locale and every test switch.",
        discussion: """
        --json prints the control API's settings object (GET /control/settings).

        Example:
          storekit settings show --server http://127.0.0.1:8080
          storekit settings show --data-dir ./store --config Examples/Demo.storekit
          storekit settings show --server http://127.0.0.1:8080 --tenant qa-1 --json
        """
    )

    @OptionGroup var options: SettingsStoreOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        let settings = try await options.settings()
        if json {
            try printJSON(settings)
        } else {
            print("Store \"\(options.location.resolvedTenant)\" in \(try options.place()):")
            settings.lines.forEach { print("  \($0)") }
        }
    }
}

/// `storekit settings set`: changes a running store's switches.
struct SettingsSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change a store's test switches; the ones not given stay as they are.",
        discussion: """
        The switches are Xcode's StoreKit testing settings (and SKTestSession's properties): Ask to Buy makes \
        purchases wait for `storekit tx approve`; interrupted purchases wait for `storekit tx resolve`; failing \
        transactions makes every purchase fail with the error code given; billing issues make renewals fail into \
        billing retry, with a grace period first if that is on; the renewal limit stops a subscription after N \
        renewals, as Apple's sandbox does after 12 (0 removes the limit). The change is stored with the store's \
        state, so every server and command on the same storage runs with it, and it outlives restarts. The new \
        settings are printed.

        Example:
          storekit settings set --ask-to-buy on --server http://127.0.0.1:8080
          storekit settings set --ask-to-buy on --data-dir ./store --config Examples/Demo.storekit
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

    @Option(help: ArgumentHelp(
        "The environment the store signs as: Sandbox (default), Production or Xcode.",
        discussion: "Production payloads carry the app's Apple ID (appAppleId: the .storekit file's _applicationInternalID, else one derived from the bundle ID), which Apple's verifiers check in Production mode.",
        valueName: "name"
    ))
    var environment: String?

    @Option(
        name: .customLong("refund-requests-await-decision"),
        help: "Refund requests wait for `storekit tx decide-refund` and send CONSUMPTION_REQUEST (on), or are decided at once (off, the default)."
    )
    var refundRequestsAwaitDecision: Switch?

    @Flag(help: "Print the settings afterwards as one JSON object.")
    var json = false

    /// The switches given.
    var change: SettingsChange {
        SettingsChange(
            askToBuy: askToBuy?.isOn, interruptedPurchases: interruptedPurchases?.isOn, failTransactions: failTransactions?.isOn,
            failureErrorCode: failureErrorCode, billingIssues: billingIssues?.isOn, gracePeriod: gracePeriod?.isOn,
            renewalLimit: renewalLimit, storefront: storefront, locale: locale, environment: environment,
            refundRequestsAwaitDecision: refundRequestsAwaitDecision?.isOn
        )
    }

    func validate() throws {
        if change.body.isEmpty {
            throw ValidationError("Nothing to change: give at least one setting, e.g. --ask-to-buy on. `storekit settings set --help` lists them.")
        }
        if let failureErrorCode, failureErrorCode < 0 {
            throw ValidationError("--failure-error-code \(failureErrorCode) is not an SKError code; they are 0 or more, e.g. 2 for paymentCancelled.")
        }
        if let renewalLimit, renewalLimit < 0 {
            throw ValidationError("--renewal-limit \(renewalLimit) is negative. Give how many renewals a subscription may have, or 0 for no limit.")
        }
        if let storefront, Storefront.named(storefront) == nil {
            throw ValidationError("Unknown storefront \"\(storefront)\". Use an ISO 3166-1 alpha-3 code such as USA or FRA.")
        }
        if let environment, !StoreSettings.signingEnvironments.contains(environment) {
            throw ValidationError("Unknown environment \"\(environment)\". Use \(StoreSettings.signingEnvironments.joined(separator: ", ")).")
        }
    }

    func run() async throws {
        let settings = try await options.update(change)
        if json {
            try printJSON(settings)
        } else {
            print("Store \"\(options.location.resolvedTenant)\" in \(try options.place()) now has:")
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
            "refund requests:        \(refundRequestsAwaitDecision ? "await a decision" : "decided at once")",
            "time rate:              \(TimeRateArgument.name(of: timeRate)) (change it with `storekit clock rate`)",
        ]
    }
}
