// swift-crypto 3.12 does not mark the P-256 key types Sendable on Linux. They are immutable wrappers of BoringSSL keys
// whose signing functions are thread-safe, so keeping them in Sendable values is sound.
@preconcurrency import Crypto
public import Foundation
import SwiftASN1
public import X509

/// The store's TLS root and the server certificate it issues, kept apart from the signing authority.
///
/// Trusting this root lets a backend reach `storekit serve` over HTTPS at Apple's own host names; it vouches for
/// nothing the store signs. The store's signing roots (`storekit ca export`) verify receipts and JWS and never
/// appear in a TLS handshake. Each can be trusted without the other.
///
/// The root (P-256, ten years) is made once and kept in `<data-dir>/tls/`; the server certificate (P-256, 397 days,
/// the most Apple's TLS clients accept) is issued from it for ``AppleHosts/all`` and whatever names a server adds,
/// and issued again whenever it lacks a name, nears its end, or was issued by another root. Certificates are dated by
/// wall time, never the store's clock: TLS clients check them against their own.
public struct TLSAuthority: Sendable {
    /// The file names in the authority's directory.
    public enum FileName {
        /// The root certificate, PEM: what clients trust.
        public static let root = "root.pem"
        /// The root's private key, PKCS #8 PEM, readable by the owner only.
        public static let rootKey = "root-key.pem"
        /// The server certificate and its private key, one PEM file written in one step.
        public static let server = "server.pem"
    }

    /// The root certificate clients trust.
    public let root: Certificate
    private let rootKey: P256.Signing.PrivateKey

    /// How long a new root is valid.
    static let rootLifetime: TimeInterval = 10 * 365 * 86_400
    /// How long a server certificate is valid: under the 398 days Apple's platforms accept for TLS.
    static let serverLifetime: TimeInterval = 397 * 86_400
    /// A server certificate closer than this to its end is issued again.
    static let renewalMargin: TimeInterval = 30 * 86_400

    /// Makes a new root, valid from an hour before `now` (clocks disagree a little) for ten years.
    public init(now: Date, organization: String = "OpenStoreKit") throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            OrganizationName(organization)
            CommonName("\(organization) TLS Root CA")
        }
        let publicKey = Certificate.PublicKey(key.publicKey)
        root = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-3_600), notValidAfter: now.addingTimeInterval(Self.rootLifetime),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: publicKey)
            },
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        rootKey = key
    }

    /// Reads a root and its key from PEM.
    ///
    /// - Throws: ``TLSAuthorityError`` when either does not read or they do not belong together.
    public init(rootPEM: String, rootKeyPEM: String) throws(TLSAuthorityError) {
        do {
            root = try Certificate(pemEncoded: rootPEM)
        } catch {
            throw TLSAuthorityError("The TLS root is not a PEM certificate (\(error)).")
        }
        do {
            rootKey = try P256.Signing.PrivateKey(pemRepresentation: rootKeyPEM)
        } catch {
            throw TLSAuthorityError("The TLS root's key is not a P-256 private key in PEM (\(error)).")
        }
        guard root.publicKey == Certificate.PublicKey(rootKey.publicKey) else {
            throw TLSAuthorityError("The TLS root's key does not belong to its certificate.")
        }
    }

    /// The root as PEM, the file clients are given to trust.
    public var rootPEM: String {
        get throws { try root.serializeAsPEM().pemString + "\n" }
    }

    /// The root's DER encoding.
    public var rootDER: [UInt8] {
        get throws {
            var serializer = DER.Serializer()
            try serializer.serialize(root)
            return serializer.serializedBytes
        }
    }

    /// Issues a server certificate for `hosts` (DNS names and IP addresses), valid from an hour before `now` for 397
    /// days, or until the root ends if that comes first.
    public func issueServerIdentity(hosts: [String], now: Date) throws -> TLSServerIdentity {
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let names = SubjectAlternativeNames(hosts.map { host in
            if let address = IPAddressBytes(host) { GeneralName.ipAddress(ASN1OctetString(contentBytes: address.bytes[...])) } else { GeneralName.dnsName(host) }
        })
        let rootIdentifier = try root.extensions.subjectKeyIdentifier?.keyIdentifier ?? SubjectKeyIdentifier(hash: root.publicKey).keyIdentifier
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-3_600),
            notValidAfter: min(now.addingTimeInterval(Self.serverLifetime), root.notValidAfter),
            issuer: root.subject,
            subject: try DistinguishedName { CommonName(hosts.first { IPAddressBytes($0) == nil } ?? "localhost") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                names
                SubjectKeyIdentifier(hash: publicKey)
                AuthorityKeyIdentifier(keyIdentifier: rootIdentifier)
            },
            issuerPrivateKey: Certificate.PrivateKey(rootKey)
        )
        return TLSServerIdentity(certificate: certificate, privateKey: key)
    }

    /// Whether `identity` can be served at `now` for `hosts`: issued by this root, naming every host, and more than
    /// 30 days from its end.
    public func canServe(_ identity: TLSServerIdentity, hosts: [String], now: Date) -> Bool {
        guard identity.certificate.issuer == root.subject,
              identity.certificate.signatureAlgorithm == .ecdsaWithSHA256,
              root.publicKey.isValidSignature(identity.certificate.signature, for: identity.certificate),
              identity.certificate.notValidBefore <= now,
              identity.certificate.notValidAfter.timeIntervalSince(now) > Self.renewalMargin
        else { return false }
        return Set(hosts).isSubset(of: identity.hosts)
    }

    // MARK: - Persistence

    /// The authority kept in `directory`, made there on first use, and a server certificate for `hosts` that it
    /// issued: the one kept beside it when that still serves, else a new one, saved in its place.
    ///
    /// The root is written in one step (a staging directory renamed into place), so servers starting together in one
    /// data directory end up with the same root. Private keys are written readable by the owner only.
    ///
    /// - Throws: ``TLSAuthorityError`` when the directory holds a damaged or expired root, or cannot be written; the
    ///   message says which file and what to do.
    public static func loadOrCreate(in directory: URL, hosts: [String], now: Date) throws(TLSAuthorityError) -> (authority: TLSAuthority, identity: TLSServerIdentity) {
        let authority = try loadOrCreateRoot(in: directory, now: now)
        let serverFile = directory.appendingPathComponent(FileName.server)
        if let text = try? String(contentsOf: serverFile, encoding: .utf8),
           let identity = try? TLSServerIdentity(pem: text),
           authority.canServe(identity, hosts: hosts, now: now) {
            return (authority, identity)
        }
        do {
            let identity = try authority.issueServerIdentity(hosts: hosts, now: now)
            try write(try identity.pem, to: serverFile, mode: 0o600)
            return (authority, identity)
        } catch let error as TLSAuthorityError {
            throw error
        } catch {
            throw TLSAuthorityError("Cannot issue the server certificate in \(directory.path): \(error).")
        }
    }

    /// The root kept in `directory`, or a new one written there when it holds none: what clients trust.
    ///
    /// - Throws: ``TLSAuthorityError`` when the directory holds a damaged or expired root, or cannot be written.
    public static func loadOrCreateRoot(in directory: URL, now: Date) throws(TLSAuthorityError) -> TLSAuthority {
        let fileManager = FileManager.default
        let rootFile = directory.appendingPathComponent(FileName.root)
        if !fileManager.fileExists(atPath: rootFile.path) {
            let staging = directory.deletingLastPathComponent().appendingPathComponent(".\(directory.lastPathComponent).partial-\(UUID().uuidString)")
            do {
                try fileManager.createDirectory(at: staging, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                let made = try TLSAuthority(now: now)
                try write(try made.rootPEM, to: staging.appendingPathComponent(FileName.root), mode: 0o644)
                try write(made.rootKey.pemRepresentation + "\n", to: staging.appendingPathComponent(FileName.rootKey), mode: 0o600)
            } catch {
                try? fileManager.removeItem(at: staging)
                throw TLSAuthorityError("Cannot make the TLS root next to \(directory.path): \(error). Check that the data directory is writable.")
            }
            // rename(2) fails when another process put a root there first; then that one is read below.
            if rename(staging.path, directory.path) != 0 { try? fileManager.removeItem(at: staging) }
        }
        let rootPEM: String, keyPEM: String
        do {
            rootPEM = try String(contentsOf: rootFile, encoding: .utf8)
            keyPEM = try String(contentsOf: directory.appendingPathComponent(FileName.rootKey), encoding: .utf8)
        } catch {
            throw TLSAuthorityError("Cannot read the TLS root in \(directory.path) (\(error.localizedDescription)). Restore \(FileName.root) and \(FileName.rootKey), or delete the directory to make a new root (clients must then trust the new one).")
        }
        let authority: TLSAuthority
        do {
            authority = try TLSAuthority(rootPEM: rootPEM, rootKeyPEM: keyPEM)
        } catch {
            throw TLSAuthorityError("\(error.message) (in \(directory.path)). Delete the directory to make a new root; clients must then trust the new one.")
        }
        guard authority.root.notValidAfter > now.addingTimeInterval(renewalMargin) else {
            throw TLSAuthorityError("The TLS root in \(directory.path) expires \(authority.root.notValidAfter.formatted(.iso8601)). Delete the directory to make a new root, and trust the new one (storekit ca export --tls).")
        }
        return authority
    }

    private static func write(_ text: String, to file: URL, mode: Int) throws {
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: Data(text.utf8), attributes: [.posixPermissions: mode]) else {
            throw TLSAuthorityError("Cannot write \(file.path); check the directory's permissions.")
        }
        guard rename(temporary.path, file.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw TLSAuthorityError("Cannot replace \(file.path) (errno \(errno)); check the directory's permissions.")
        }
    }
}

/// A server certificate and its private key: what an HTTPS listener presents.
public struct TLSServerIdentity: Sendable {
    /// The certificate, issued by a ``TLSAuthority``.
    public let certificate: Certificate
    let privateKey: P256.Signing.PrivateKey

    init(certificate: Certificate, privateKey: P256.Signing.PrivateKey) {
        self.certificate = certificate
        self.privateKey = privateKey
    }

    /// Reads the certificate and key from one PEM text holding both (as ``pem`` writes it).
    public init(pem: String) throws(TLSAuthorityError) {
        do {
            let documents = try PEMDocument.parseMultiple(pemString: pem)
            guard let certificate = documents.first(where: { $0.discriminator == "CERTIFICATE" }),
                  let key = documents.first(where: { $0.discriminator == "PRIVATE KEY" }) else {
                throw TLSAuthorityError("The server identity needs a CERTIFICATE and a PRIVATE KEY block.")
            }
            self.certificate = try Certificate(derEncoded: certificate.derBytes)
            self.privateKey = try P256.Signing.PrivateKey(derRepresentation: key.derBytes)
        } catch let error as TLSAuthorityError {
            throw error
        } catch {
            throw TLSAuthorityError("The server identity does not read as PEM (\(error)).")
        }
        guard certificate.publicKey == Certificate.PublicKey(privateKey.publicKey) else {
            throw TLSAuthorityError("The server certificate and its key do not belong together.")
        }
    }

    /// The certificate then the private key (PKCS #8), PEM.
    public var pem: String {
        get throws { try certificate.serializeAsPEM().pemString + "\n" + privateKey.pemRepresentation + "\n" }
    }

    /// The certificate's DER encoding.
    public var certificateDER: [UInt8] {
        get throws {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return serializer.serializedBytes
        }
    }

    /// The private key's PKCS #8 DER encoding.
    public var privateKeyDER: [UInt8] { Array(privateKey.derRepresentation) }

    /// The DNS names and IP addresses (as text) the certificate is valid for.
    public var hosts: Set<String> {
        guard let names = try? certificate.extensions.subjectAlternativeNames else { return [] }
        return Set(names.compactMap { name in
            switch name {
            case .dnsName(let host): host
            case .ipAddress(let octets): IPAddressBytes(octets.bytes).description
            default: nil
            }
        })
    }
}

/// The TLS root or the server certificate cannot be made, read or written; the message says what to do.
public struct TLSAuthorityError: Error, Sendable, CustomStringConvertible {
    /// What went wrong and what to do.
    public let message: String
    init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}

/// An IPv4 or IPv6 address as the bytes a certificate's `iPAddress` name holds, read with `inet_pton` and written
/// with `inet_ntop` so a name compares equal however the address was spelled.
struct IPAddressBytes: Equatable, CustomStringConvertible {
    let bytes: [UInt8]

    init?(_ text: String) {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = Array(bytes)
    }

    var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        guard bytes.count == 4 || bytes.count == 16,
              bytes.withUnsafeBytes({ inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }) != nil else {
            return bytes.map { String($0, radix: 16) }.joined(separator: ":")
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
