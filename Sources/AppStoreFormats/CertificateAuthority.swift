// swift-crypto 3.12 does not mark the P-256/P-384 key types Sendable on Linux. They are immutable wrappers of
// BoringSSL keys whose signing functions are thread-safe, so storing them in Sendable values is sound.
@preconcurrency import Crypto
public import Foundation
import SwiftASN1
import X509
import _CryptoExtras

/// The store's own certificate authority: two chains shaped like Apple's, one for JWS and one for receipts.
///
/// - The **JWS chain** is root (P-384) → intermediate (P-384, Apple OID 1.2.840.113635.100.6.2.1) → leaf
///   (P-256, Apple OID 1.2.840.113635.100.6.11.1), all signed with ecdsa-with-SHA384, like Apple's
///   "Apple Root CA - G3" chain. The leaf signs ES256 JWS.
/// - The **receipt chain** is the same shape with RSA-2048 keys and sha256WithRSAEncryption, like Apple's
///   "Apple Root CA" → WWDR G5 chain. The leaf signs PKCS#7 app receipts.
///
/// Every certificate carries the extensions OpenSSL's `X509_STRICT` mode requires (critical basic
/// constraints and key usage, subject and authority key identifiers), so Apple's
/// `SignedDataVerifier` accepts what the store signs once it is given ``rootCertificatesDER``.
/// Certificates are valid from 2000-01-01 to 2099-12-31 (widened to include `issuedAt`), because offline
/// verifiers check them at each payload's `signedDate`, which a virtual clock can move anywhere.
///
/// Create one with ``init(issuedAt:subjectPrefix:)``, persist it with ``loadOrCreate(in:issuedAt:subjectPrefix:)``
/// or keep it elsewhere through ``pemFiles`` and ``init(pemFiles:)``.
public struct CertificateAuthority: Sendable {
    /// The subject name prefix used when none is given.
    public static let defaultSubjectPrefix = "OpenStoreKit"

    /// The validity window of generated certificates: 2000-01-01T00:00:00Z to 2099-12-31T23:59:59Z.
    public static let defaultValidity: ClosedRange<Date> =
        Date(timeIntervalSince1970: 946_684_800)...Date(timeIntervalSince1970: 4_102_444_799)

    /// The file names of ``pemFiles`` (and of the files ``loadOrCreate(in:issuedAt:subjectPrefix:)`` writes).
    /// Names ending in `-key.pem` hold private keys (PKCS#8) and are written with mode 0600.
    public static let pemFileNames: [String] = [
        FileName.jwsRoot, FileName.jwsRootKey, FileName.jwsIntermediate, FileName.jwsIntermediateKey,
        FileName.jwsLeaf, FileName.jwsLeafKey,
        FileName.receiptRoot, FileName.receiptRootKey, FileName.receiptIntermediate, FileName.receiptIntermediateKey,
        FileName.receiptLeaf, FileName.receiptLeafKey,
    ]

    enum FileName {
        static let jwsRoot = "jws-root.pem"
        static let jwsRootKey = "jws-root-key.pem"
        static let jwsIntermediate = "jws-intermediate.pem"
        static let jwsIntermediateKey = "jws-intermediate-key.pem"
        static let jwsLeaf = "jws-leaf.pem"
        static let jwsLeafKey = "jws-leaf-key.pem"
        static let receiptRoot = "receipt-root.pem"
        static let receiptRootKey = "receipt-root-key.pem"
        static let receiptIntermediate = "receipt-intermediate.pem"
        static let receiptIntermediateKey = "receipt-intermediate-key.pem"
        static let receiptLeaf = "receipt-leaf.pem"
        static let receiptLeafKey = "receipt-leaf-key.pem"
    }

    /// The ECDSA chain whose leaf signs JWS (leaf P-256).
    public let jwsChain: CertificateChain
    /// The RSA-2048 chain whose leaf signs PKCS#7 receipts.
    public let receiptChain: CertificateChain

    let jwsRootKey: P384.Signing.PrivateKey
    let jwsIntermediateKey: P384.Signing.PrivateKey
    /// The JWS leaf's private key (ES256).
    let jwsLeafKey: P256.Signing.PrivateKey
    let receiptRootKey: _RSA.Signing.PrivateKey
    let receiptIntermediateKey: _RSA.Signing.PrivateKey
    /// The receipt leaf's private key (RSA PKCS#1 v1.5).
    let receiptLeafKey: _RSA.Signing.PrivateKey

    /// Generates a new authority: six fresh keys and six certificates.
    ///
    /// RSA key generation makes this take a few hundred milliseconds; persist the result.
    /// - Parameters:
    ///   - issuedAt: The store's current time. Certificates are valid from 2000-01-01 to 2099-12-31, widened to
    ///     include this date if it falls outside.
    ///   - subjectPrefix: The organisation name that starts every subject, e.g. "OpenStoreKit Root CA - G3".
    public init(issuedAt: Date, subjectPrefix: String = CertificateAuthority.defaultSubjectPrefix) throws {
        let notBefore = min(issuedAt, Self.defaultValidity.lowerBound)
        let notAfter = max(issuedAt.addingTimeInterval(366 * 86_400), Self.defaultValidity.upperBound)
        let names = Names(prefix: subjectPrefix)

        let jwsRootKey = P384.Signing.PrivateKey()
        let jwsIntermediateKey = P384.Signing.PrivateKey()
        let jwsLeafKey = P256.Signing.PrivateKey()
        let jwsRoot = try Self.makeCertificate(
            role: .root, subject: names.jwsRoot, publicKey: .init(jwsRootKey.publicKey),
            issuer: nil, issuerKey: .init(jwsRootKey), algorithm: .ecdsaWithSHA384,
            notBefore: notBefore, notAfter: notAfter
        )
        let jwsIntermediate = try Self.makeCertificate(
            role: .intermediate, subject: names.jwsIntermediate, publicKey: .init(jwsIntermediateKey.publicKey),
            issuer: jwsRoot, issuerKey: .init(jwsRootKey), algorithm: .ecdsaWithSHA384,
            notBefore: notBefore, notAfter: notAfter
        )
        let jwsLeaf = try Self.makeCertificate(
            role: .leaf, subject: names.jwsLeaf, publicKey: .init(jwsLeafKey.publicKey),
            issuer: jwsIntermediate, issuerKey: .init(jwsIntermediateKey), algorithm: .ecdsaWithSHA384,
            notBefore: notBefore, notAfter: notAfter
        )

        let receiptRootKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let receiptIntermediateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let receiptLeafKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let receiptRoot = try Self.makeCertificate(
            role: .root, subject: names.receiptRoot, publicKey: .init(receiptRootKey.publicKey),
            issuer: nil, issuerKey: .init(receiptRootKey), algorithm: .sha256WithRSAEncryption,
            notBefore: notBefore, notAfter: notAfter
        )
        let receiptIntermediate = try Self.makeCertificate(
            role: .intermediate, subject: names.receiptIntermediate,
            publicKey: .init(receiptIntermediateKey.publicKey),
            issuer: receiptRoot, issuerKey: .init(receiptRootKey), algorithm: .sha256WithRSAEncryption,
            notBefore: notBefore, notAfter: notAfter
        )
        let receiptLeaf = try Self.makeCertificate(
            role: .leaf, subject: names.receiptLeaf, publicKey: .init(receiptLeafKey.publicKey),
            issuer: receiptIntermediate, issuerKey: .init(receiptIntermediateKey),
            algorithm: .sha256WithRSAEncryption,
            notBefore: notBefore, notAfter: notAfter
        )

        self.jwsChain = try CertificateChain(leaf: jwsLeaf, intermediate: jwsIntermediate, root: jwsRoot)
        self.receiptChain = try CertificateChain(
            leaf: receiptLeaf, intermediate: receiptIntermediate, root: receiptRoot
        )
        self.jwsRootKey = jwsRootKey
        self.jwsIntermediateKey = jwsIntermediateKey
        self.jwsLeafKey = jwsLeafKey
        self.receiptRootKey = receiptRootKey
        self.receiptIntermediateKey = receiptIntermediateKey
        self.receiptLeafKey = receiptLeafKey
    }

    /// Reads an authority from PEM texts keyed by the names in ``pemFileNames`` (the inverse of ``pemFiles``).
    ///
    /// Each private key must match its certificate; a missing entry or a mismatched key throws.
    public init(pemFiles: [String: String]) throws {
        func text(_ name: String) throws -> String {
            guard let text = pemFiles[name] else {
                throw FormatError.malformedData("The certificate authority has no \(name); restore it or generate a new authority.")
            }
            return text
        }
        func certificate(_ name: String) throws -> Certificate {
            do {
                return try CertificateParser.certificate(pemEncoded: try text(name))
            } catch let error as FormatError {
                throw error
            } catch {
                throw FormatError.malformedCertificate("\(name) is not a PEM certificate: \(error)")
            }
        }
        func key<Key>(_ name: String, _ make: (String) throws -> Key) throws -> Key {
            let pem = try text(name)
            do {
                return try make(pem)
            } catch {
                throw FormatError.malformedKey("\(name) is not a PEM private key of the expected type: \(error)")
            }
        }
        let jwsRootKey = try key(FileName.jwsRootKey) { try P384.Signing.PrivateKey(pemRepresentation: $0) }
        let jwsIntermediateKey = try key(FileName.jwsIntermediateKey) { try P384.Signing.PrivateKey(pemRepresentation: $0) }
        let jwsLeafKey = try key(FileName.jwsLeafKey) { try P256.Signing.PrivateKey(pemRepresentation: $0) }
        let receiptRootKey = try key(FileName.receiptRootKey) { try _RSA.Signing.PrivateKey(pemRepresentation: $0) }
        let receiptIntermediateKey = try key(FileName.receiptIntermediateKey) {
            try _RSA.Signing.PrivateKey(pemRepresentation: $0)
        }
        let receiptLeafKey = try key(FileName.receiptLeafKey) { try _RSA.Signing.PrivateKey(pemRepresentation: $0) }

        let pairs: [(String, Certificate.PublicKey)] = [
            (FileName.jwsRoot, .init(jwsRootKey.publicKey)),
            (FileName.jwsIntermediate, .init(jwsIntermediateKey.publicKey)),
            (FileName.jwsLeaf, .init(jwsLeafKey.publicKey)),
            (FileName.receiptRoot, .init(receiptRootKey.publicKey)),
            (FileName.receiptIntermediate, .init(receiptIntermediateKey.publicKey)),
            (FileName.receiptLeaf, .init(receiptLeafKey.publicKey)),
        ]
        var certificates: [String: Certificate] = [:]
        for (name, publicKey) in pairs {
            let parsed = try certificate(name)
            guard parsed.publicKey == publicKey else {
                throw FormatError.malformedKey("\(name) does not match its private key; the authority's files are inconsistent.")
            }
            certificates[name] = parsed
        }
        self.jwsChain = try CertificateChain(
            leaf: certificates[FileName.jwsLeaf]!, intermediate: certificates[FileName.jwsIntermediate]!,
            root: certificates[FileName.jwsRoot]!
        )
        self.receiptChain = try CertificateChain(
            leaf: certificates[FileName.receiptLeaf]!, intermediate: certificates[FileName.receiptIntermediate]!,
            root: certificates[FileName.receiptRoot]!
        )
        self.jwsRootKey = jwsRootKey
        self.jwsIntermediateKey = jwsIntermediateKey
        self.jwsLeafKey = jwsLeafKey
        self.receiptRootKey = receiptRootKey
        self.receiptIntermediateKey = receiptIntermediateKey
        self.receiptLeafKey = receiptLeafKey
    }

    /// The authority as PEM texts keyed by file name (see ``pemFileNames``): certificates and PKCS#8 private keys.
    ///
    /// Store these wherever the store keeps secrets and pass them back to ``init(pemFiles:)``.
    public var pemFiles: [String: String] {
        get throws {
            [
                FileName.jwsRoot: try jwsChain.root.pemString,
                FileName.jwsRootKey: jwsRootKey.pemRepresentation,
                FileName.jwsIntermediate: try jwsChain.intermediate.pemString,
                FileName.jwsIntermediateKey: jwsIntermediateKey.pemRepresentation,
                FileName.jwsLeaf: try jwsChain.leaf.pemString,
                FileName.jwsLeafKey: jwsLeafKey.pemRepresentation,
                FileName.receiptRoot: try receiptChain.root.pemString,
                FileName.receiptRootKey: receiptRootKey.pkcs8PEMRepresentation,
                FileName.receiptIntermediate: try receiptChain.intermediate.pemString,
                FileName.receiptIntermediateKey: receiptIntermediateKey.pkcs8PEMRepresentation,
                FileName.receiptLeaf: try receiptChain.leaf.pemString,
                FileName.receiptLeafKey: receiptLeafKey.pkcs8PEMRepresentation,
            ].mapValues { $0.hasSuffix("\n") ? $0 : $0 + "\n" }
        }
    }

    /// The DER encodings of both roots: the JWS root first, then the receipt root.
    ///
    /// Give these to Apple's `SignedDataVerifier(root_certificates=…)` or to ``JWSVerifier`` and ``ReceiptVerifier``.
    public var rootCertificatesDER: [Data] { [jwsChain.derEncoded[2], receiptChain.derEncoded[2]] }

    /// Both roots as one PEM bundle (JWS root first), like Xcode's "Save Public Certificate".
    public var rootCertificatesPEM: String {
        rootCertificatesDER.map { der in
            PEMDocument(type: "CERTIFICATE", derBytes: Array(der)).pemString + "\n"
        }.joined()
    }

    /// The JWS root's DER encoding.
    public var jwsRootCertificateDER: Data { jwsChain.derEncoded[2] }

    /// The receipt root's DER encoding.
    public var receiptRootCertificateDER: Data { receiptChain.derEncoded[2] }

    // MARK: - Persistence

    /// Loads the authority stored in `directory`, or generates one and writes it there on first use.
    ///
    /// Certificates are written with mode 0644 and private keys with 0600. Creation is atomic: the files are
    /// written to a temporary sibling directory that is then renamed, so a concurrent caller either loads the
    /// finished authority or creates its own and loses the rename race and loads the winner's. A directory that
    /// holds only some of the files is an error rather than being silently replaced, because verifiers may have
    /// pinned its root.
    public static func loadOrCreate(
        in directory: URL,
        issuedAt: Date = CertificateAuthority.defaultValidity.lowerBound,
        subjectPrefix: String = CertificateAuthority.defaultSubjectPrefix
    ) throws -> CertificateAuthority {
        if let stored = try loadIfPresent(from: directory) { return stored }
        return try install(CertificateAuthority(issuedAt: issuedAt, subjectPrefix: subjectPrefix), in: directory)
    }

    /// The authority stored in `directory`, or nil when the directory holds none of its files.
    ///
    /// - Throws: `FormatError.fileSystem` when the directory holds only some of the files, or they cannot be read.
    public static func loadIfPresent(from directory: URL) throws -> CertificateAuthority? {
        let fileManager = FileManager.default
        // The directory first: ``install(_:in:)`` renames a finished one into place, so once it exists every file is
        // there. Looking for the files alone could see none of the first few and all of the last while another
        // process's rename lands between the looks, and call a whole authority incomplete.
        guard fileManager.fileExists(atPath: directory.path) else { return nil }
        let present = pemFileNames.filter { fileManager.fileExists(atPath: directory.appendingPathComponent($0).path) }
        if present.count == pemFileNames.count {
            return try load(from: directory)
        }
        if !present.isEmpty {
            let missing = pemFileNames.filter { !present.contains($0) }
            throw FormatError.fileSystem(
                "The certificate authority in \(directory.path) is incomplete (missing \(missing.joined(separator: ", "))). Restore the files, or delete the directory to generate a new authority."
            )
        }
        return nil
    }

    /// Writes `authority` into `directory` atomically, unless another authority got there first, and returns the
    /// authority the directory holds afterwards (`authority`, or the one already there).
    public static func install(_ authority: CertificateAuthority, in directory: URL) throws -> CertificateAuthority {
        if let stored = try loadIfPresent(from: directory) { return stored }
        let fileManager = FileManager.default
        let parent = directory.deletingLastPathComponent()
        let staging = parent.appendingPathComponent(".\(directory.lastPathComponent).partial-\(UUID().uuidString)")
        do {
            try fileManager.createDirectory(at: parent, withIntermediateDirectories: true)
            try fileManager.createDirectory(
                at: staging, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700]
            )
            try authority.write(to: staging)
        } catch let error as FormatError {
            try? fileManager.removeItem(at: staging)
            throw error
        } catch {
            try? fileManager.removeItem(at: staging)
            throw FormatError.fileSystem("Could not write the certificate authority next to \(directory.path): \(error)")
        }
        // rename(2) replaces an empty directory; it fails if another process already filled `directory`.
        if rename(staging.path, directory.path) != 0 {
            try? fileManager.removeItem(at: staging)
            let winner = pemFileNames.allSatisfy {
                fileManager.fileExists(atPath: directory.appendingPathComponent($0).path)
            }
            guard winner else {
                throw FormatError.fileSystem(
                    "Could not move the new certificate authority into \(directory.path) (errno \(errno)); make sure the directory is empty or absent and writable."
                )
            }
            return try load(from: directory)
        }
        return authority
    }

    /// Reads an authority written by ``loadOrCreate(in:issuedAt:subjectPrefix:)`` or ``write(to:)``.
    public static func load(from directory: URL) throws -> CertificateAuthority {
        var files: [String: String] = [:]
        for name in pemFileNames {
            let url = directory.appendingPathComponent(name)
            do {
                files[name] = try String(contentsOf: url, encoding: .utf8)
            } catch {
                throw FormatError.fileSystem("Could not read \(url.path): \(error)")
            }
        }
        return try CertificateAuthority(pemFiles: files)
    }

    /// Writes ``pemFiles`` into an existing directory (keys with mode 0600, certificates 0644).
    public func write(to directory: URL) throws {
        for (name, text) in try pemFiles {
            let url = directory.appendingPathComponent(name)
            let mode: Int = name.hasSuffix("-key.pem") ? 0o600 : 0o644
            guard FileManager.default.createFile(
                atPath: url.path, contents: Data(text.utf8), attributes: [.posixPermissions: mode]
            ) else {
                throw FormatError.fileSystem("Could not write \(url.path); check the directory's permissions.")
            }
        }
    }

    // MARK: - Generation

    private struct Names {
        let jwsRoot: DistinguishedName
        let jwsIntermediate: DistinguishedName
        let jwsLeaf: DistinguishedName
        let receiptRoot: DistinguishedName
        let receiptIntermediate: DistinguishedName
        let receiptLeaf: DistinguishedName

        init(prefix: String) {
            func name(_ commonName: String, unit: String) -> DistinguishedName {
                DistinguishedName([
                    RelativeDistinguishedName(RelativeDistinguishedName.Attribute(type: .RDNAttributeType.organizationName, utf8String: prefix)),
                    RelativeDistinguishedName(RelativeDistinguishedName.Attribute(type: .RDNAttributeType.organizationalUnitName, utf8String: unit)),
                    RelativeDistinguishedName(RelativeDistinguishedName.Attribute(type: .RDNAttributeType.commonName, utf8String: commonName)),
                ])
            }
            let developerRelations = "\(prefix) Worldwide Developer Relations"
            jwsRoot = name("\(prefix) Root CA - G3", unit: "\(prefix) Certification Authority")
            jwsIntermediate = name("\(prefix) Worldwide Developer Relations Certification Authority", unit: "G6")
            jwsLeaf = name("\(prefix) Prod ECC Mac App Store and iTunes Store Receipt Signing", unit: developerRelations)
            receiptRoot = name("\(prefix) Root CA", unit: "\(prefix) Certification Authority")
            receiptIntermediate = name("\(prefix) Worldwide Developer Relations Certification Authority", unit: "G5")
            receiptLeaf = name("\(prefix) Mac App Store and iTunes Store Receipt Signing", unit: developerRelations)
        }
    }

    private enum Role { case root, intermediate, leaf }

    private static func makeCertificate(
        role: Role,
        subject: DistinguishedName,
        publicKey: Certificate.PublicKey,
        issuer: Certificate?,
        issuerKey: Certificate.PrivateKey,
        algorithm: Certificate.SignatureAlgorithm,
        notBefore: Date,
        notAfter: Date
    ) throws -> Certificate {
        var extensions: [Certificate.Extension] = []
        switch role {
        case .root:
            extensions.append(try .init(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true))
            extensions.append(try .init(KeyUsage(keyCertSign: true, cRLSign: true), critical: true))
        case .intermediate:
            extensions.append(try .init(BasicConstraints.isCertificateAuthority(maxPathLength: 0), critical: true))
            extensions.append(try .init(KeyUsage(keyCertSign: true, cRLSign: true), critical: true))
        case .leaf:
            extensions.append(try .init(BasicConstraints.notCertificateAuthority, critical: true))
            extensions.append(try .init(KeyUsage(digitalSignature: true), critical: true))
        }
        extensions.append(try .init(SubjectKeyIdentifier(hash: publicKey), critical: false))
        if let issuer {
            let issuerKeyIdentifier = try issuer.extensions.subjectKeyIdentifier?.keyIdentifier
                ?? SubjectKeyIdentifier(hash: issuer.publicKey).keyIdentifier
            extensions.append(try .init(AuthorityKeyIdentifier(keyIdentifier: issuerKeyIdentifier), critical: false))
        }
        switch role {
        case .root: break
        case .intermediate:
            extensions.append(.init(oid: OID.asn1(OID.appleIntermediateMarker), critical: false, value: [0x05, 0x00]))
        case .leaf:
            extensions.append(.init(oid: OID.asn1(OID.appleLeafMarker), critical: false, value: [0x05, 0x00]))
        }
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: issuer?.subject ?? subject,
            subject: subject,
            signatureAlgorithm: algorithm,
            extensions: try Certificate.Extensions(extensions),
            issuerPrivateKey: issuerKey
        )
    }
}
