public import AppStoreEngine
import AppStoreFormats
public import AppStoreHosting
import Foundation
import Synchronization

/// PostgreSQL as a data directory's database: `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (`storekit serve
/// --database`, `OPENSTOREKIT_DATABASE_URL`), shared by every server and command given the same URL.
///
/// Register it once (`StoreFactory.register(_:)`, as the `storekit` command does) and `StoreFactory` opens
/// `postgres://` and `postgresql://` URLs with it. Stores on one database in a process share its connection pool,
/// and sign with the certificate authority the database keeps, so what one server signed verifies against the root
/// any other hands out.
public struct PostgresDatabase: StoreDatabase {
    /// `postgres` and `postgresql`, as `psql` reads them.
    public var schemes: Set<String> { ["postgres", "postgresql"] }

    /// The PostgreSQL database kind.
    public init() {}

    /// Opens the database `url` names: the one already open in this process, or a new connection pool (which
    /// connects and migrates the database).
    public func open(_ url: String?, in directory: StoreDataDirectory, tenant: String) throws(StoreError) -> OpenedStoreDatabase {
        guard let url else {
            throw .storageFailure("PostgreSQL is not a data directory's own database: give a postgres:// URL.")
        }
        let database = try Self.sharedStorage(url: url)
        return OpenedStoreDatabase(
            storage: database, signer: Self.sharedSigner(database: database, directory: directory),
            clockState: try database.clockState(tenant: tenant)
        )
    }

    /// One set of connections per URL in a process, for as long as a store uses it: `storekit serve` opens a store
    /// per tenant, and each would otherwise open connections of its own. Each store has a handle of its own on them,
    /// which a server closes as it shuts down; the connections close with the last handle.
    private static let shared = Mutex<[String: WeakConnections]>([:])

    /// A new handle on the database a URL names: on the connections already open in this process, or on new ones.
    private static func sharedStorage(url: String) throws(StoreError) -> PostgresStorage {
        if let handle = shared.withLock({ $0[url]?.connections.flatMap(PostgresStorage.init(sharing:)) }) { return handle }
        // Opened outside the lock: it waits for the database. Should another thread open the same URL meanwhile,
        // the first one stored wins and the other is released, closing its connections.
        let opened = try PostgresStorage(url: url)
        return shared.withLock { shared in
            if let handle = shared[url]?.connections.flatMap(PostgresStorage.init(sharing:)) { return handle }
            shared = shared.filter { $0.value.connections.map { !$0.isClosed } ?? false }
            shared[url] = WeakConnections(connections: opened.connections)
            return opened
        }
    }

    /// The signer of a store on the database: the certificate authority every server on it signs with. The first
    /// server to sign stores the authority of its data directory (made there first if it has none); the others copy
    /// the stored one into their `ca/`, so `storekit ca` on their machines shows it too. A data directory holding a
    /// different authority is refused rather than overwritten, since devices and servers may trust its root.
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

/// Connections that stay open only while stores use them.
private struct WeakConnections: Sendable {
    weak var connections: PostgresConnections?
}
