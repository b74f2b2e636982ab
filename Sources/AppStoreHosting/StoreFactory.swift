public import AppStoreEngine
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
    /// The store's clock.
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
    /// - Throws: `StoreError.storageFailure` when the data directory's database cannot be opened.
    public static func open(_ specification: StoreSpecification) throws(StoreError) -> StoreEngine {
        let storage: any Storage
        let signer: StoreSigner
        switch specification.location {
        case .dataDirectory(let directory):
            storage = try SQLiteStorage(url: directory.databaseURL)
            signer = directory.signer
        case .memory:
            storage = InMemoryStorage()
            signer = .ephemeral
        }
        let configuration = specification.configuration
        return StoreEngine(
            tenantID: specification.tenant,
            catalog: configuration.map(Catalog.init(configuration:)) ?? Catalog(products: []),
            settings: configuration.map(StoreSettings.init(configuration:)) ?? StoreSettings(),
            storage: storage, clock: specification.clock, signer: signer
        )
    }
}
