public import AppStoreEngine
import AppStoreFormats
import AppStoreSQLite
import Foundation
public import StoreKitConfiguration

/// Where a store keeps its state.
public enum StoreLocation: Sendable {
    /// In a data directory: a SQLite database shared with every process that opens the same directory, and a
    /// certificate authority kept under `ca/`, so what the store signed stays verifiable.
    case dataDirectory(StoreDataDirectory)
    /// In memory, gone with the process, signed by an authority made for the process: one test's store.
    case memory
}

/// What to open: a store's location, what it sells, which of its isolated stores, and its clock.
public struct StoreSpecification: Sendable {
    /// Where the store keeps its state.
    public var location: StoreLocation
    /// The products and settings; `nil` for a store that only reads and changes existing state (an empty
    /// catalog, default settings).
    public var configuration: StoreKitConfigurationFile?
    /// The isolated store inside the location.
    public var tenant: String
    /// The store's clock, or the base of it: unless it is a `VirtualClock` or a `TenantClock`, the store runs on a
    /// `TenantClock` over it, with the offset the tenant stored (see ``StoreFactory/open(_:)``).
    public var clock: any StoreClock

    /// Describes a store.
    public init(
        location: StoreLocation, configuration: StoreKitConfigurationFile? = nil,
        tenant: String = StoreDefaults.tenant, clock: any StoreClock = SystemClock()
    ) {
        self.location = location
        self.configuration = configuration
        self.tenant = tenant
        self.clock = clock
    }
}

/// The one way to open a store: the `storekit` command, an app process's `SKPaymentQueue` and `SKTestSession`
/// all turn a ``StoreSpecification`` into a `StoreEngine` here.
public enum StoreFactory {
    /// Opens the store a specification describes, creating its database and directories when needed.
    ///
    /// The certificate authority of a data directory is loaded, or generated, on the first signature, so
    /// opening is fast.
    ///
    /// The store runs on the tenant's persisted clock: a `TenantClock` over the specification's clock, ahead of it
    /// by the offset the tenant stored (`storekit clock advance`, `StoreEngine.advanceClock(by:)`), so every process
    /// that opens the tenant agrees on the time. A `VirtualClock` is used as it is. A time rate the tenant stored
    /// (`storekit clock rate`) replaces the configuration's.
    ///
    /// - Throws: `StoreError.storageFailure` when the data directory's database cannot be opened.
    public static func open(_ specification: StoreSpecification) throws(StoreError) -> StoreEngine {
        let storage: any Storage
        let signer: StoreSigner
        let clockState: StoreClockState
        switch specification.location {
        case .dataDirectory(let directory):
            let database = try SQLiteStorage(url: directory.databaseURL)
            clockState = try database.clockState(tenant: specification.tenant)
            storage = database
            signer = directory.signer
        case .memory:
            storage = InMemoryStorage()
            clockState = StoreClockState()
            signer = .ephemeral
        }
        let configuration = specification.configuration
        var settings = configuration.map(StoreSettings.init(configuration:)) ?? StoreSettings()
        if let rate = clockState.timeRate { settings.timeRate = rate }
        let clock: any StoreClock = switch specification.clock {
        case is VirtualClock, is TenantClock: specification.clock
        default: TenantClock(offset: clockState.offset, base: specification.clock)
        }
        return StoreEngine(
            tenantID: specification.tenant,
            catalog: configuration.map(Catalog.init(configuration:)) ?? Catalog(products: []),
            settings: settings, storage: storage, clock: clock, signer: signer,
            promotionalOfferKeys: configuration.map(PromotionalOfferKey.keys(in:)) ?? []
        )
    }
}
