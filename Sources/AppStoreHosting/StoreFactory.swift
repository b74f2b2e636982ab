public import AppStoreEngine
import AppStoreFormats
public import Foundation
public import StoreKitConfiguration

/// Where a store keeps its state.
public enum StoreLocation: Sendable {
    /// In a data directory: a SQLite database shared with every process that opens the same directory, and a
    /// certificate authority kept under `ca/`, so what the store signed stays verifiable.
    ///
    /// With a ``StoreSpecification/databaseURL`` (or `OPENSTOREKIT_DATABASE_URL`), the store's state is in that
    /// PostgreSQL database instead, shared with every process and server that opens it, and so is the certificate
    /// authority (with a copy under `ca/`); the devices stay in the directory.
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
    /// `TenantClock` over it, with the offset the tenant stored (see ``StoreFactory/open(_:environment:)``).
    public var clock: any StoreClock
    /// The PostgreSQL database that holds a data-directory store's state instead of the directory's SQLite file: a
    /// `postgres://USER:PASSWORD@HOST:PORT/DATABASE` URL (`storekit serve --database`). `nil` uses
    /// `OPENSTOREKIT_DATABASE_URL` when it is set, else SQLite. Only a ``StoreLocation/dataDirectory(_:)`` store
    /// has a database.
    public var databaseURL: String?

    /// Describes a store.
    ///
    /// - Parameters:
    ///   - location: Where the store keeps its state.
    ///   - configuration: The products and settings; `nil` for an empty catalog and default settings.
    ///   - tenant: The isolated store inside the location.
    ///   - clock: The store's clock, or the base of its tenant's clock.
    ///   - databaseURL: A `postgres://` URL for a data-directory store's state; `nil` for `OPENSTOREKIT_DATABASE_URL`
    ///     or, without it, the directory's SQLite file.
    public init(
        location: StoreLocation, configuration: StoreKitConfigurationFile? = nil,
        tenant: String = StoreDefaults.tenant, clock: any StoreClock = SystemClock(), databaseURL: String? = nil
    ) {
        self.location = location
        self.configuration = configuration
        self.tenant = tenant
        self.clock = clock
        self.databaseURL = databaseURL
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
    /// A data-directory store keeps its state in the directory's SQLite file, unless the specification's
    /// ``StoreSpecification/databaseURL`` or the environment's `OPENSTOREKIT_DATABASE_URL` names a PostgreSQL database.
    /// Stores on one database in a process share its connection pool.
    ///
    /// - Parameters:
    ///   - specification: The store to open.
    ///   - environment: Where to look for `OPENSTOREKIT_DATABASE_URL`; the process's environment by default.
    /// - Throws: `StoreError.storageFailure` when the store's database cannot be opened or its URL cannot be read, or
    ///   when a store in memory is given a database.
    public static func open(
        _ specification: StoreSpecification, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(StoreError) -> StoreEngine {
        let storage: any Storage
        let signer: StoreSigner
        let clockState: StoreClockState
        switch specification.location {
        case .dataDirectory(let directory):
            let opened: OpenedStoreDatabase
            if let url = specification.databaseURL {
                opened = try openDatabase(url, in: directory, tenant: specification.tenant)
            } else if let url = EnvironmentVariables.value(EnvironmentVariables.databaseURL, in: environment) {
                do {
                    opened = try openDatabase(url, in: directory, tenant: specification.tenant)
                } catch {
                    throw .storageFailure(
                        "\(EnvironmentVariables.databaseURL) names a database that cannot be used: \(error.message) To keep the store in the data directory's SQLite file instead, unset it."
                    )
                }
            } else {
                guard let database = database(scheme: dataDirectoryScheme) else {
                    throw .storageFailure(
                        "A data directory's store is kept in SQLite, which this program does not link: link AppStoreSQLite and call StoreFactory.register(SQLiteDatabase()) first (OpenStoreKit does when its SQLite package trait is on, the default), or open a store in memory."
                    )
                }
                opened = try database.open(nil, in: directory, tenant: specification.tenant)
            }
            (storage, signer, clockState) = (opened.storage, opened.signer, opened.clockState)
        case .memory:
            guard specification.databaseURL == nil else {
                throw .storageFailure("A store in memory keeps nothing in a database: leave databaseURL out, or open a data directory.")
            }
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

extension StoreFactory {
    /// Opens the database a URL names with the database registered for its scheme.
    private static func openDatabase(_ url: String, in directory: StoreDataDirectory, tenant: String) throws(StoreError) -> OpenedStoreDatabase {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else {
            throw .storageFailure("\(url) is not a database URL: write postgres://USER:PASSWORD@HOST:PORT/DATABASE.")
        }
        let scheme = url[..<colon].lowercased()
        guard let database = database(scheme: scheme) else {
            if scheme == "postgres" || scheme == "postgresql" {
                throw .storageFailure(
                    "\(scheme):// databases are opened by AppStorePostgres, which this program does not link: link it and call StoreFactory.register(PostgresDatabase()) first (the storekit command does), or run storekit serve --database \(scheme)://… and talk to it over HTTP."
                )
            }
            throw .storageFailure("\(scheme):// is not a database OpenStoreKit keeps stores in: use a postgres:// URL, or none for the data directory's SQLite file.")
        }
        return try database.open(url, in: directory, tenant: tenant)
    }
}
