public import AppStoreFormats
import Foundation
import Synchronization

/// Signs what a store issues: JWS transactions and PKCS#7 app receipts, with one certificate authority.
///
/// The authority can be given, or loaded on first use so that a store starts at once even when its
/// authority still has to be generated (RSA key generation takes a while).
public struct StoreSigner: Sendable {
    /// The authority and the signers made from it.
    struct Keys: Sendable {
        let certificateAuthority: CertificateAuthority
        let jws: JWSSigner
        let receipts: ReceiptSigner

        init(_ certificateAuthority: CertificateAuthority) {
            self.certificateAuthority = certificateAuthority
            jws = JWSSigner(certificateAuthority: certificateAuthority)
            receipts = ReceiptSigner(certificateAuthority: certificateAuthority)
        }
    }

    /// Loads the keys once; every caller gets the same result. The lock is held while loading so that
    /// concurrent first uses wait for one authority instead of making several.
    private final class Loader: Sendable {
        private let load: @Sendable () throws -> CertificateAuthority
        private let result = Mutex<Result<Keys, StoreError>?>(nil)

        init(_ load: @escaping @Sendable () throws -> CertificateAuthority) {
            self.load = load
        }

        func keys() throws(StoreError) -> Keys {
            let outcome = result.withLock { result in
                if let result { return result }
                let loaded: Result<Keys, StoreError>
                do {
                    loaded = .success(Keys(try load()))
                } catch {
                    loaded = .failure(StoreError.signingFailure("The store's certificate authority is unusable: \(error)"))
                }
                result = loaded
                return loaded
            }
            return try outcome.get()
        }
    }

    private let loader: Loader

    /// Signs with `certificateAuthority`.
    public init(certificateAuthority: CertificateAuthority) {
        loader = Loader { certificateAuthority }
    }

    /// Signs with the authority `load` returns, called once, on the first signature.
    ///
    /// Use it with `CertificateAuthority.loadOrCreate(in:)` for a store that keeps its authority on disk.
    public init(loading load: @escaping @Sendable () throws -> CertificateAuthority) {
        loader = Loader(load)
    }

    /// The authority whose leaves sign; verifiers trust its roots.
    public var certificateAuthority: CertificateAuthority {
        get throws(StoreError) { try loader.keys().certificateAuthority }
    }

    /// The authority and signers, loading them on first use.
    func keys() throws(StoreError) -> Keys {
        try loader.keys()
    }

    /// A signer whose authority is generated once per process and never written anywhere.
    ///
    /// Right for stores that live in memory (tests, `SKTestSession`). A store that outlives its process
    /// must sign with an authority it keeps, or verifiers that pinned the root would reject it next time.
    public static let ephemeral = StoreSigner {
        try CertificateAuthority(issuedAt: CertificateAuthority.defaultValidity.lowerBound)
    }
}
