/// An App Store country: its three-letter code, Apple's numeric storefront identifier and its currency.
public struct Storefront: Sendable, Hashable, Codable {
    /// ISO 3166-1 alpha-3 country code, e.g. `USA`.
    public var countryCode: String
    /// Apple's numeric storefront identifier, e.g. `143441` for the United States.
    public var id: String
    /// ISO 4217 currency code the storefront charges in.
    public var currency: String

    /// Creates a storefront.
    public init(countryCode: String, id: String, currency: String) {
        self.countryCode = countryCode
        self.id = id
        self.currency = currency
    }

    /// The storefront for a country code, if the store knows it.
    public static func named(_ countryCode: String) -> Storefront? {
        known[countryCode.uppercased()]
    }

    /// Every App Store storefront, by country code: Apple's 184 storefronts with their numeric identifiers.
    ///
    /// The currency is the one the App Store charges in: the country's own where Apple prices in it, US dollars
    /// elsewhere. Kosovo's code is Apple's `XKS`, as it has no ISO 3166-1 code.
    public static let known: [String: Storefront] = {
        let table: [(String, String, String)] = [
            ("USA", "143441", "USD"), ("FRA", "143442", "EUR"), ("DEU", "143443", "EUR"), ("GBR", "143444", "GBP"),
            ("AUT", "143445", "EUR"), ("BEL", "143446", "EUR"), ("FIN", "143447", "EUR"), ("GRC", "143448", "EUR"),
            ("IRL", "143449", "EUR"), ("ITA", "143450", "EUR"), ("LUX", "143451", "EUR"), ("NLD", "143452", "EUR"),
            ("PRT", "143453", "EUR"), ("ESP", "143454", "EUR"), ("CAN", "143455", "CAD"), ("SWE", "143456", "SEK"),
            ("NOR", "143457", "NOK"), ("DNK", "143458", "DKK"), ("CHE", "143459", "CHF"), ("AUS", "143460", "AUD"),
            ("NZL", "143461", "NZD"), ("JPN", "143462", "JPY"), ("HKG", "143463", "HKD"), ("SGP", "143464", "SGD"),
            ("CHN", "143465", "CNY"), ("KOR", "143466", "KRW"), ("IND", "143467", "INR"), ("MEX", "143468", "MXN"),
            ("RUS", "143469", "RUB"), ("TWN", "143470", "TWD"), ("VNM", "143471", "VND"), ("ZAF", "143472", "ZAR"),
            ("MYS", "143473", "MYR"), ("PHL", "143474", "PHP"), ("THA", "143475", "THB"), ("IDN", "143476", "IDR"),
            ("PAK", "143477", "PKR"), ("POL", "143478", "PLN"), ("SAU", "143479", "SAR"), ("TUR", "143480", "TRY"),
            ("ARE", "143481", "AED"), ("HUN", "143482", "HUF"), ("CHL", "143483", "CLP"), ("NPL", "143484", "USD"),
            ("PAN", "143485", "USD"), ("LKA", "143486", "USD"), ("ROU", "143487", "RON"), ("MDV", "143488", "USD"),
            ("CZE", "143489", "CZK"), ("BGD", "143490", "USD"), ("ISR", "143491", "ILS"), ("UKR", "143492", "UAH"),
            ("KWT", "143493", "USD"), ("HRV", "143494", "EUR"), ("CRI", "143495", "USD"), ("SVK", "143496", "EUR"),
            ("LBN", "143497", "USD"), ("QAT", "143498", "QAR"), ("SVN", "143499", "EUR"), ("SRB", "143500", "USD"),
            ("COL", "143501", "COP"), ("VEN", "143502", "USD"), ("BRA", "143503", "BRL"), ("GTM", "143504", "USD"),
            ("ARG", "143505", "ARS"), ("SLV", "143506", "USD"), ("PER", "143507", "PEN"), ("DOM", "143508", "USD"),
            ("ECU", "143509", "USD"), ("HND", "143510", "USD"), ("JAM", "143511", "USD"), ("NIC", "143512", "USD"),
            ("PRY", "143513", "USD"), ("URY", "143514", "USD"), ("MAC", "143515", "USD"), ("EGY", "143516", "EGP"),
            ("KAZ", "143517", "KZT"), ("EST", "143518", "EUR"), ("LVA", "143519", "EUR"), ("LTU", "143520", "EUR"),
            ("MLT", "143521", "EUR"), ("LIE", "143522", "CHF"), ("MDA", "143523", "USD"), ("ARM", "143524", "USD"),
            ("BWA", "143525", "USD"), ("BGR", "143526", "BGN"), ("CIV", "143527", "USD"), ("JOR", "143528", "USD"),
            ("KEN", "143529", "USD"), ("MKD", "143530", "USD"), ("MDG", "143531", "USD"), ("MLI", "143532", "USD"),
            ("MUS", "143533", "USD"), ("NER", "143534", "USD"), ("SEN", "143535", "USD"), ("TUN", "143536", "USD"),
            ("UGA", "143537", "USD"), ("AIA", "143538", "USD"), ("BHS", "143539", "USD"), ("ATG", "143540", "USD"),
            ("BRB", "143541", "USD"), ("BMU", "143542", "USD"), ("VGB", "143543", "USD"), ("CYM", "143544", "USD"),
            ("DMA", "143545", "USD"), ("GRD", "143546", "USD"), ("MSR", "143547", "USD"), ("KNA", "143548", "USD"),
            ("LCA", "143549", "USD"), ("VCT", "143550", "USD"), ("TTO", "143551", "USD"), ("TCA", "143552", "USD"),
            ("GUY", "143553", "USD"), ("SUR", "143554", "USD"), ("BLZ", "143555", "USD"), ("BOL", "143556", "USD"),
            ("CYP", "143557", "EUR"), ("ISL", "143558", "USD"), ("BHR", "143559", "USD"), ("BRN", "143560", "USD"),
            ("NGA", "143561", "NGN"), ("OMN", "143562", "USD"), ("DZA", "143563", "USD"), ("AGO", "143564", "USD"),
            ("BLR", "143565", "USD"), ("UZB", "143566", "USD"), ("LBY", "143567", "USD"), ("AZE", "143568", "USD"),
            ("ETH", "143569", "USD"), ("MMR", "143570", "USD"), ("YEM", "143571", "USD"), ("TZA", "143572", "TZS"),
            ("GHA", "143573", "USD"), ("CMR", "143574", "USD"), ("ALB", "143575", "USD"), ("BEN", "143576", "USD"),
            ("BTN", "143577", "USD"), ("BFA", "143578", "USD"), ("KHM", "143579", "USD"), ("CPV", "143580", "USD"),
            ("TCD", "143581", "USD"), ("COG", "143582", "USD"), ("FJI", "143583", "USD"), ("GMB", "143584", "USD"),
            ("GNB", "143585", "USD"), ("KGZ", "143586", "USD"), ("LAO", "143587", "USD"), ("LBR", "143588", "USD"),
            ("MWI", "143589", "USD"), ("MRT", "143590", "USD"), ("FSM", "143591", "USD"), ("MNG", "143592", "USD"),
            ("MOZ", "143593", "USD"), ("NAM", "143594", "USD"), ("PLW", "143595", "USD"), ("PSE", "143596", "ILS"),
            ("PNG", "143597", "USD"), ("STP", "143598", "USD"), ("SYC", "143599", "USD"), ("SLE", "143600", "USD"),
            ("SLB", "143601", "USD"), ("SWZ", "143602", "USD"), ("TJK", "143603", "USD"), ("TKM", "143604", "USD"),
            ("ZWE", "143605", "USD"), ("NRU", "143606", "AUD"), ("WSM", "143607", "USD"), ("TON", "143608", "USD"),
            ("VUT", "143609", "USD"), ("AFG", "143610", "USD"), ("AND", "143611", "EUR"), ("BIH", "143612", "USD"),
            ("COD", "143613", "USD"), ("GAB", "143614", "USD"), ("GEO", "143615", "USD"), ("GIN", "143616", "USD"),
            ("IRQ", "143617", "USD"), ("MCO", "143618", "EUR"), ("MNE", "143619", "EUR"), ("MAR", "143620", "USD"),
            ("RWA", "143621", "USD"), ("ZMB", "143622", "USD"), ("CAF", "143623", "USD"), ("XKS", "143624", "EUR"),
        ]
        return Dictionary(uniqueKeysWithValues: table.map { ($0.0, Storefront(countryCode: $0.0, id: $0.1, currency: $0.2)) })
    }()
}
