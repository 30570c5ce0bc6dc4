"""Street suffixes of English addresses: the USPS list (Publication 28, Appendix C1 "Street Suffix
Abbreviations": every primary name and its standard abbreviation), plus common British and
Commonwealth ones the USPS does not list.

Used by :mod:`audit.recognizers` to build the English street-address pattern. The list is
data, kept here in full rather than the handful of suffixes the pattern once had (issue 14:
"Walks", "Pines", "Ferry" … reached memory).
"""

from __future__ import annotations

# USPS primary street suffix names.
USPS_NAMES = (
    "Alley", "Annex", "Arcade", "Avenue", "Bayou", "Beach", "Bend", "Bluff", "Bluffs", "Bottom", "Boulevard", "Branch",
    "Bridge", "Brook", "Brooks", "Burg", "Burgs", "Bypass", "Camp", "Canyon", "Cape", "Causeway", "Center", "Centers",
    "Circle", "Circles", "Cliff", "Cliffs", "Club", "Common", "Commons", "Corner", "Corners", "Course", "Court", "Courts",
    "Cove", "Coves", "Creek", "Crescent", "Crest", "Crossing", "Crossroad", "Crossroads", "Curve", "Dale", "Dam",
    "Divide", "Drive", "Drives", "Estate", "Estates", "Expressway", "Extension", "Extensions", "Fall", "Falls", "Ferry",
    "Field", "Fields", "Flat", "Flats", "Ford", "Fords", "Forest", "Forge", "Forges", "Fork", "Forks", "Fort", "Freeway",
    "Garden", "Gardens", "Gateway", "Glen", "Glens", "Green", "Greens", "Grove", "Groves", "Harbor", "Harbors", "Haven",
    "Heights", "Highway", "Hill", "Hills", "Hollow", "Inlet", "Island", "Islands", "Isle", "Junction", "Junctions",
    "Key", "Keys", "Knoll", "Knolls", "Lake", "Lakes", "Land", "Landing", "Lane", "Light", "Lights", "Loaf", "Lock",
    "Locks", "Lodge", "Loop", "Mall", "Manor", "Manors", "Meadow", "Meadows", "Mews", "Mill", "Mills", "Mission",
    "Motorway", "Mount", "Mountain", "Mountains", "Neck", "Orchard", "Oval", "Overpass", "Park", "Parks", "Parkway",
    "Parkways", "Pass", "Passage", "Path", "Pike", "Pine", "Pines", "Place", "Plain", "Plains", "Plaza", "Point",
    "Points", "Port", "Ports", "Prairie", "Radial", "Ramp", "Ranch", "Rapid", "Rapids", "Rest", "Ridge", "Ridges",
    "River", "Road", "Roads", "Route", "Row", "Rue", "Run", "Shoal", "Shoals", "Shore", "Shores", "Skyway", "Spring",
    "Springs", "Spur", "Spurs", "Square", "Squares", "Station", "Stravenue", "Stream", "Street", "Streets", "Summit",
    "Terrace", "Throughway", "Trace", "Track", "Trafficway", "Trail", "Trailer", "Tunnel", "Turnpike", "Underpass",
    "Union", "Unions", "Valley", "Valleys", "Viaduct", "View", "Views", "Village", "Villages", "Ville", "Vista", "Walk",
    "Walks", "Wall", "Way", "Ways", "Well", "Wells",
)

# USPS standard abbreviations (written with or without a full stop), less "Is" (Island) and "Un"
# (Union), which are English words first.
USPS_ABBREVIATIONS = (
    "Aly", "Anx", "Arc", "Ave", "Byu", "Bch", "Bnd", "Blf", "Blfs", "Btm", "Blvd", "Br", "Brg", "Brk", "Brks", "Bg",
    "Bgs", "Byp", "Cp", "Cyn", "Cpe", "Cswy", "Ctr", "Ctrs", "Cir", "Cirs", "Clf", "Clfs", "Clb", "Cmn", "Cmns", "Cor",
    "Cors", "Crse", "Ct", "Cts", "Cv", "Cvs", "Crk", "Cres", "Crst", "Xing", "Xrd", "Xrds", "Curv", "Dl", "Dm", "Dv",
    "Dr", "Drs", "Est", "Ests", "Expy", "Ext", "Exts", "Fls", "Fry", "Fld", "Flds", "Flt", "Flts", "Frd", "Frds",
    "Frst", "Frg", "Frgs", "Frk", "Frks", "Ft", "Fwy", "Gdn", "Gdns", "Gtwy", "Gln", "Glns", "Grn", "Grns", "Grv",
    "Grvs", "Hbr", "Hbrs", "Hvn", "Hts", "Hwy", "Hl", "Hls", "Holw", "Inlt", "Iss", "Jct", "Jcts", "Ky", "Kys",
    "Knl", "Knls", "Lk", "Lks", "Lndg", "Ln", "Lgt", "Lgts", "Lf", "Lck", "Lcks", "Ldg", "Mnr", "Mnrs", "Mdw", "Mdws",
    "Ml", "Mls", "Msn", "Mtwy", "Mt", "Mtn", "Mtns", "Nck", "Orch", "Opas", "Pkwy", "Pkwys", "Psge", "Pne", "Pnes",
    "Pl", "Pln", "Plns", "Plz", "Pt", "Pts", "Prt", "Prts", "Pr", "Radl", "Rnch", "Rpd", "Rpds", "Rst", "Rdg", "Rdgs",
    "Riv", "Rd", "Rds", "Rte", "Shl", "Shls", "Shr", "Shrs", "Skwy", "Spg", "Spgs", "Sq", "Sqs", "Sta", "Stra", "Strm",
    "St", "Sts", "Smt", "Ter", "Trwy", "Trce", "Trak", "Trfy", "Trl", "Trlr", "Tunl", "Tpke", "Upas", "Uns",
    "Vly", "Vlys", "Via", "Vw", "Vws", "Vlg", "Vlgs", "Vl", "Vis", "Wl", "Wls",
)

# British and Commonwealth street names the USPS list lacks.
OTHER_NAMES = (
    "Close", "Rise", "Parade", "Wharf", "Quay", "Yard", "Circus", "Approach", "Chase", "Drove", "Gate", "Wynd",
    "Embankment", "Broadway", "Promenade", "Esplanade", "Crossway", "Hillside", "Grange", "Brae", "Croft", "Fold",
)

SUFFIXES: tuple[str, ...] = tuple(dict.fromkeys(USPS_NAMES + OTHER_NAMES + USPS_ABBREVIATIONS))


def suffix_pattern() -> str:
    """A regex alternation of every suffix (longest first, so "Streets" wins over "St")."""
    return "(?:" + "|".join(sorted(SUFFIXES, key=lambda s: (-len(s), s))) + ")"
