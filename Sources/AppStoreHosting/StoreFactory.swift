public import AppStoreEngine
import AppStoreFormats
import AppStorePostgres
import AppStoreSQLite
public import Foundation
public import StoreKitConfiguration
import Synchronization

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
            if let url = specification.databaseURL {
                let database = try sharedPostgresStorage(url: url)
                clockState = try database.clockState(tenant: specification.tenant)
                storage = database
                signer = sharedSigner(database: database, directory: directory)
            } else if let url = EnvironmentVariables.value(EnvironmentVariables.databaseURL, in: environment) {
                let database: PostgresStorage
                do {
                    database = try sharedPostgresStorage(url: url)
                } catch {
                    throw .storageFailure(
                        "\(EnvironmentVariables.databaseURL) names a database that cannot be used: \(error.message) To keep the store in the data directory's SQLite file instead, unset it."
                    )
                }
                clockState = try database.clockState(tenant: specification.tenant)
                storage = database
                signer = sharedSigner(database: database, directory: directory)
            } else {
                let database = try SQLiteStorage(url: directory.databaseURL)
                clockState = try database.clockState(tenant: specification.tenant)
                storage = database
                signer = directory.signer
            }
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
    /// One storage, and so one connection pool, per PostgreSQL URL in a process, for as long as a store uses it:
    /// `storekit serve` opens a store per tenant, and each would otherwise open connections of its own.
    private static let postgresStorages = Mutex<[String: WeakPostgresStorage]>([:])

    /// The storage of the database a URL names: the one already open in this process, or a new one (which connects
    /// and migrates the database).
    private static func sharedPostgresStorage(url: String) throws(StoreError) -> PostgresStorage {
        if let open = postgresStorages.withLock({ $0[url]?.storage }) { return open }
        // Opened outside the lock: it waits for the database. Should another thread open the same URL meanwhile,
        // the first one stored wins and the other is released.
        let opened = try PostgresStorage(url: url)
        return postgresStorages.withLock { storages in
            if let open = storages[url]?.storage { return open }
            storages = storages.filter { $0.value.storage != nil }
            storages[url] = WeakPostgresStorage(storage: opened)
            return opened
        }
    }
}

extension StoreFactory {
    /// The signer of a store on a PostgreSQL database: the certificate authority every server on the database signs
    /// with, so what one server signed verifies against the root any other hands out. The first server to sign
    /// stores the authority of its data directory (made there first if it has none); the others copy the stored one
    /// into their `ca/`, so `storekit ca` on their machines shows it too. A data directory holding a different
    /// authority is refused rather than overwritten, since devices and servers may trust its root.
    private static func sharedSigner(database: PostgresStorage, directory: StoreDataDirectory) -> StoreSigner {
        let url = directory.certificateAuthorityURL
        return StoreSigner {
            let local = try CertificateAuthority.loadIfPresent(from: url)
            let files = try database.certificateAuthority(storingIfAbsent: { try (local ?? CertificateAuthority(issuedAt: CertificateAuthority.defaultValidity.lowerBound)).pemFiles })
            let shared = try CertificateAuthority(pemFiles: files)
            let installed = try CertificateAuthority.install(shared, in: url)
            guard installed.rootCertificatesDER == shared.rootCertificatesDER else {
                throw StoreError.signingFailure(
                    "The certificate authority in \(url.path) is not the one the database shares with every server on it. Move that directory away to have this server copy the database's authority there and sign with it."
                )
            }
            return shared
        }
    }
}

/// A storage that stays open only while stores use it.
private struct WeakPostgresStorage: Sendable {
    weak var storage: PostgresStorage?
}
