import AppStoreEngine
import AppStoreServer
import AppStoreHosting
import ArgumentParser
import Foundation
import StoreKitConfiguration

/// `storekit clock`: the tenant's persisted store clock, for time travel from the terminal.
struct ClockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clock",
        abstract: "Show or move a store's clock: renewals and expiries happen on it.",
        discussion: """
        Each store (tenant) in a data directory has its own clock: wall time plus an offset the store keeps. \
        Moving it forward is stored at once, so every process that opens the store afterwards (other `storekit` \
        commands, `storekit serve`, apps) sees the moved time. The clock only moves forward; to start over at \
        wall time, use another tenant (--tenant).

        Moving the clock applies every renewal and expiry due on the way, each subscription renewing once per \
        period that ended. Give --config so the store knows the products subscriptions renew into; without it the \
        clock moves and the renewals are applied by the next process that opens the store with its configuration.

        Example:
          storekit clock show
          storekit clock advance 1mo --config Examples/Demo.storekit
          storekit clock set 2027-01-01T00:00:00Z --tenant scenario-1
          storekit clock rate oneRenewalEveryTenSeconds
        """,
        subcommands: [ClockShowCommand.self, ClockAdvanceCommand.self, ClockSetCommand.self, ClockRateCommand.self]
    )
}

/// The options every `storekit clock` subcommand shares: the store, and optionally its configuration.
struct ClockStoreOptions: ParsableArguments {
    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Option(help: ArgumentHelp(
        "The .storekit file that lists the products, so due subscriptions renew into them.",
        discussion: "Without it, renewals and expiries wait for a process that opens the store with its configuration.",
        valueName: "file"
    ))
    var config: String?

    @Flag(
        inversion: .prefixedNo,
        help: "Show a progress bar on standard error while a long move renews and expires subscriptions (default: when it is a terminal)."
    )
    var progress: Bool?

    /// Opens the store, with the configuration's products when one was given.
    func openStore() throws -> StoreEngine {
        try location.openStore(configuration: try config.map(loadConfiguration))
    }

    /// How far a command moves the clock.
    enum Move {
        /// By a number of seconds from the store's now: the stored offset grows by exactly that much.
        case by(TimeInterval)
        /// To a date.
        case to(Date)
    }

    /// Moves `store`'s clock. A move of more than two days, with a progress bar, goes in up to 100 steps that each
    /// apply what fell due on the way and are stored as they complete, so an interrupted move keeps what it did; the
    /// end state is the same as one move's.
    func advance(_ store: StoreEngine, _ move: Move) async throws {
        let total = switch move {
        case .by(let interval): interval
        case .to(let date): date.timeIntervalSince(store.clock.now())
        }
        let showsProgress = progress ?? (isatty(STDERR_FILENO) == 1)
        let steps = showsProgress && total > 2 * 86_400 ? min(100, Int(total / 86_400)) : 1
        let bar = steps > 1 ? ProgressBar(title: "advancing the clock") : nil
        var moved: TimeInterval = 0
        for step in 1...steps {
            if step < steps {
                let next = total * Double(step) / Double(steps)
                try await store.advanceClock(by: next - moved)
                moved = next
            } else {
                switch move {
                case .by(let interval): try await store.advanceClock(by: interval - moved)
                case .to(let date): try await store.advanceClock(to: date)
                }
            }
            bar?.show(fraction: Double(step) / Double(steps), detail: store.clock.now().formatted(.iso8601))
        }
        bar?.finish()
    }

    /// The running server's store to act on instead, with `--server`.
    func serverStore() throws -> ServerControl? {
        try remote.serverControl(location: location)
    }

    /// A line that says where deferred events go, when no configuration was given.
    var deferredEventsNote: String? {
        config == nil
            ? "No --config given: renewals and expiries due by now are applied by the next process that opens this store with its configuration (e.g. `storekit subscriptions --config FILE`)."
            : nil
    }
}

/// `storekit clock show`: where the store's clock is.
struct ClockShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show the store's now, how far it runs ahead of wall time, its time rate and the next subscription event.",
        discussion: """
        Example:
          storekit clock show
          storekit clock show --tenant scenario-1 --json
        """
    )

    @OptionGroup var options: ClockStoreOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        if let server = try options.serverStore() {
            let clock: ServerClock = try await server.call(.getClock)
            if json { try printJSON(clock) } else { print(clock.line(tenant: options.location.resolvedTenant)) }
            return
        }
        let store = try options.openStore()
        let output = try await ClockOutput(store: store, rateIsConfigured: options.config != nil)
        if json {
            try printJSON(output)
        } else {
            print("Store \"\(options.location.resolvedTenant)\" in \(options.location.directory.url.path)")
            output.lines.forEach { print("  \($0)") }
        }
    }
}

/// `storekit clock advance`: moves the store's clock forward by a duration.
struct ClockAdvanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "advance",
        abstract: "Move the store's clock forward by a duration, renewing and expiring subscriptions on the way.",
        discussion: """
        A duration is numbers with units, combined as you like: \(ClockDuration.unitsHelp). Years, months, weeks \
        and days are calendar units (UTC), so 1mo from January 31 is the end of February.

        Example:
          storekit clock advance 1mo --config Examples/Demo.storekit
          storekit clock advance 1y2mo --config Examples/Demo.storekit --tenant scenario-1
          storekit clock advance 90m
        """
    )

    @Argument(help: ArgumentHelp("How far to move, e.g. 1y, 3mo, 2w, 10d, 12h, 30m, 45s or 1mo2d.", valueName: "duration"))
    var duration: String

    @OptionGroup var options: ClockStoreOptions

    func validate() throws {
        _ = try parsedDuration()
    }

    private func parsedDuration() throws -> ClockDuration {
        guard let parsed = ClockDuration(parsing: duration) else {
            throw ValidationError("\"\(duration)\" is not a duration. Write numbers with units: \(ClockDuration.unitsHelp).")
        }
        return parsed
    }

    func run() async throws {
        let duration = try parsedDuration()
        if let server = try options.serverStore() {
            let clock: ServerClock = try await server.call(.advanceClock, body: ["by": self.duration])
            print(clock.line(tenant: options.location.resolvedTenant))
            return
        }
        let store = try options.openStore()
        let now = store.clock.now()
        guard let target = duration.added(to: now) else {
            throw ValidationError("The duration is too long to add to \(now.formatted(.iso8601)). Use a shorter one.")
        }
        try await options.advance(store, .by(target.timeIntervalSince(now)))
        try await printMoved(store, options: options)
    }
}

/// `storekit clock set`: moves the store's clock forward to a date.
struct ClockSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Move the store's clock forward to a date, renewing and expiring subscriptions on the way.",
        discussion: """
        The date is ISO 8601: a date and time with a time zone (2027-03-01T12:00:00Z) or a day (2027-03-01, \
        midnight UTC). It must not be before the store's now: the clock only moves forward.

        Example:
          storekit clock set 2027-03-01T12:00:00Z --config Examples/Demo.storekit
          storekit clock set 2027-03-01 --tenant scenario-1
        """
    )

    @Argument(help: ArgumentHelp("The date to move to, e.g. 2027-03-01T12:00:00Z or 2027-03-01.", valueName: "date"))
    var date: String

    @OptionGroup var options: ClockStoreOptions

    func validate() throws {
        _ = try parseClockDate(date)
    }

    func run() async throws {
        let target = try parseClockDate(date)
        if let server = try options.serverStore() {
            let clock: ServerClock = try await server.call(.advanceClock, body: ["to": target.formatted(.iso8601)])
            print(clock.line(tenant: options.location.resolvedTenant))
            return
        }
        let store = try options.openStore()
        try await options.advance(store, .to(target))
        try await printMoved(store, options: options)
    }
}

/// `storekit clock rate`: chooses the store's subscription time rate.
struct ClockRateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rate",
        abstract: "Choose how fast subscription time runs in this store, replacing the configuration's time rate.",
        discussion: """
        The rates are Apple's SKTestSession.TimeRate values; they shorten subscription periods, grace periods and \
        billing retry, not the clock itself. The choice is stored: periods that start from now on use it, in every \
        process that opens the store. --clear goes back to the configuration's _timeRate.

        Rates: \(TimeRateArgument.allValueStrings.joined(separator: ", ")).

        Example:
          storekit clock rate oneRenewalEveryTenSeconds
          storekit clock rate realTime --tenant scenario-1
          storekit clock rate --clear
        """
    )

    @Argument(help: ArgumentHelp("The time rate, e.g. oneRenewalEveryTenSeconds or realTime.", valueName: "name"))
    var rate: TimeRateArgument?

    @Flag(help: "Remove the store's choice: the configuration's time rate applies again.")
    var clear = false

    @OptionGroup var options: ClockStoreOptions

    func validate() throws {
        guard (rate != nil) != clear else {
            throw ValidationError("Give a time rate name or --clear, not both and not neither. Rates: \(TimeRateArgument.allValueStrings.joined(separator: ", ")).")
        }
    }

    func run() async throws {
        if let server = try options.serverStore() {
            let clock: ServerClock = try await server.call(.setTimeRate, body: ["timeRate": rate?.name ?? NSNull()])
            print(clock.line(tenant: options.location.resolvedTenant))
            return
        }
        let store = try options.openStore()
        try await store.setTimeRate(rate?.rate)
        if let rate {
            print("Store \"\(options.location.resolvedTenant)\" now runs at time rate \(rate.name): periods that start from now on use it.")
        } else {
            print("Store \"\(options.location.resolvedTenant)\" uses its configuration's time rate again.")
        }
    }
}

/// Prints where a moved clock ended up.
private func printMoved(_ store: StoreEngine, options: ClockStoreOptions) async throws {
    let output = try await ClockOutput(store: store, rateIsConfigured: options.config != nil)
    print("Store \"\(options.location.resolvedTenant)\" clock moved to \(output.now) (\(output.offsetText) ahead of wall time).")
    if let next = output.nextEventDate { print("Next scheduled event: \(next)") }
    if let note = options.deferredEventsNote { print(note) }
}

/// A running server's clock, as its control API answers.
struct ServerClock: Codable {
    var now: String
    /// The raw value of Apple's `SKTestSession.TimeRate`.
    var timeRate: Int

    func line(tenant: String) -> String {
        let rate = TimeRate(rawValue: timeRate).map(TimeRateArgument.name(of:)) ?? String(timeRate)
        return "Store \"\(tenant)\" on the server: now \(now), time rate \(rate)."
    }
}

/// The clock as `storekit clock show` prints it.
struct ClockOutput: Encodable {
    var tenant: String
    var now: String
    /// Seconds ahead of wall time.
    var offset: Double
    /// The time rate's name.
    var timeRate: String
    /// Where the time rate comes from: `store` (chosen with `storekit clock rate`), `configuration` or `default`.
    var timeRateSource: String
    /// The next renewal or expiry, if any subscription is active.
    var nextEventDate: String?

    init(store: StoreEngine, rateIsConfigured: Bool) async throws {
        let state = try await store.clockState()
        tenant = store.tenantID
        now = store.clock.now().formatted(.iso8601)
        offset = (store.clock as? TenantClock)?.offset ?? state.offset
        timeRate = TimeRateArgument.name(of: await store.settings.timeRate)
        timeRateSource = state.timeRate != nil ? "store" : rateIsConfigured ? "configuration" : "default"
        nextEventDate = await store.nextEventDate()?.formatted(.iso8601)
    }

    /// The offset for people: days, hours, minutes and seconds.
    var offsetText: String {
        let total = Int(offset.rounded())
        let (days, hours, minutes, seconds) = (total / 86_400, total % 86_400 / 3_600, total % 3_600 / 60, total % 60)
        return "\(days)d \(hours)h \(minutes)m \(seconds)s"
    }

    /// The lines for people.
    var lines: [String] {
        let source = switch timeRateSource {
        case "store": "chosen with `storekit clock rate`"
        case "configuration": "from the configuration"
        default: "no --config given"
        }
        return [
            "now:         \(now)",
            "offset:      \(offsetText) ahead of wall time (\(offset) seconds)",
            "time rate:   \(timeRate) (\(source))",
            "next event:  \(nextEventDate ?? "none (no active subscription or external purchase token)")",
        ]
    }
}

/// A time rate named as `SKTestSession.TimeRate`'s cases are, on the command line.
struct TimeRateArgument: ExpressibleByArgument {
    let rate: TimeRate

    init?(argument: String) {
        guard let rate = TimeRate.allCases.first(where: { Self.name(of: $0) == argument }) else { return nil }
        self.rate = rate
    }

    /// The rate's case name, e.g. `oneRenewalEveryTenSeconds`.
    var name: String { Self.name(of: rate) }

    static func name(of rate: TimeRate) -> String { String(describing: rate) }

    static var allValueStrings: [String] { TimeRate.allCases.map(name(of:)) }
}

/// Parses an ISO 8601 date or day for `storekit clock set`.
func parseClockDate(_ text: String) throws -> Date {
    let formatter = ISO8601DateFormatter()
    for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds], [.withFullDate]] {
        formatter.formatOptions = options
        if let date = formatter.date(from: text) { return date }
    }
    throw ValidationError("\"\(text)\" is not an ISO 8601 date. Write a date and time with a time zone, e.g. 2027-03-01T12:00:00Z, or a day, e.g. 2027-03-01.")
}
