#!/usr/bin/env python3
"""Writes the simulator's sample fences and routes around SAP's WDF01 campus in Walldorf.

    python3 Simulator/Tools/make_routes.py          # from the package root

Outputs Config/fences.geojson, Config/tours.json and Simulator/Routes/*.gpx, then checks every
route against every fence and fails unless each crossing is clean: the route goes at least 50 m
past the boundary (or close to the centre of a small fence or corridor) and stays on the new side
for at least 60 s at the route's own pace (50 km/h when it has no times). Only the grazing route
may break that rule, and only at its fence. Inside a fence with a speed limit, a route is either
under the limit throughout or over it in one stretch that starts well after the enter, lasts well
beyond the debounce and ends well before the exit. The output is deterministic: same script,
same bytes.

Everything is designed in local metres (x east, y north) around the WDF01 centre and
projected on the same sphere the engine uses. Streets are not followed: straight legs are
enough to exercise the service.
"""

import json
import math
import os
import sys
from datetime import datetime, timedelta, timezone

ORIGIN_LAT = 49.293406
ORIGIN_LON = 8.641362
EARTH_RADIUS = 6_371_008.8  # the engine's mean radius
DEFAULT_KMH = 50.0
MIN_RADIUS = 20.0  # the service's default geofence.min_radius_m
DEBOUNCE = 20.0  # the service's default geofence.debounce_s

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ROUTES_DIR = os.path.join(ROOT, "Simulator", "Routes")
FENCES_FILE = os.path.join(ROOT, "Config", "fences.geojson")
TOURS_FILE = os.path.join(ROOT, "Config", "tours.json")


# --- projection -----------------------------------------------------------------------------

def to_latlon(x, y):
    lat = ORIGIN_LAT + math.degrees(y / EARTH_RADIUS)
    lon = ORIGIN_LON + math.degrees(x / (EARTH_RADIUS * math.cos(math.radians(ORIGIN_LAT))))
    return round(lat, 7), round(lon, 7)


def to_local(lat, lon):
    y = math.radians(lat - ORIGIN_LAT) * EARTH_RADIUS
    x = math.radians(lon - ORIGIN_LON) * EARTH_RADIUS * math.cos(math.radians(ORIGIN_LAT))
    return x, y


def haversine(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS * math.asin(min(1.0, math.sqrt(h)))


# --- fences -----------------------------------------------------------------------------------

def circle(fid, name, desc, centre, radius, notify=("enter", "exit"), dwell=None, **rules):
    return dict({"id": fid, "name": name, "description": desc, "kind": "circle", "centre": centre,
                 "radius": radius, "notify": list(notify), "dwell_s": dwell}, **rules)


def polygon(fid, name, desc, ring, notify=("enter", "exit"), holes=(), **rules):
    return dict({"id": fid, "name": name, "description": desc, "kind": "polygon", "ring": ring,
                 "holes": [list(h) for h in holes], "notify": list(notify), "dwell_s": None}, **rules)


def corridor(fid, name, desc, line, buffer, notify=("enter", "exit"), **rules):
    return dict({"id": fid, "name": name, "description": desc, "kind": "corridor", "line": line,
                 "buffer": buffer, "notify": list(notify), "dwell_s": None}, **rules)


def rect(x0, y0, x1, y1):
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def rotated_rect(cx, cy, bearing_x, bearing_y, half_length, half_width):
    norm = math.hypot(bearing_x, bearing_y)
    ux, uy = bearing_x / norm, bearing_y / norm
    nx, ny = -uy, ux
    return [(cx + sl * half_length * ux + sw * half_width * nx, cy + sl * half_length * uy + sw * half_width * ny)
            for sl, sw in ((-1, -1), (1, -1), (1, 1), (-1, 1))]


RAIL_CENTRE = (1600.0, -1200.0)
RAIL_AXIS = (0.92, 0.39)
RAIL_HALF_LENGTH = 650.0
RAIL_HALF_WIDTH = 70.0

CORRIDOR_LINE = [(-2000.0, 2600.0), (1000.0, 2600.0), (2000.0, 3400.0), (3500.0, 3400.0)]
CORRIDOR_BUFFER = 50.0
LOT_HOLE = rect(-700.0, 3450.0, -450.0, 3650.0)
SPEED_LIMIT = 30.0
ODD_TRUCKS = ["truck-*1", "truck-*3", "truck-*5", "truck-*7", "truck-*9"]
DOCKS = [(3600.0, -1400.0), (4400.0, -1400.0), (5200.0, -1400.0)]

FENCES = [
    circle("wdf01", "SAP SE WDF01", "SAP headquarters campus, Dietmar-Hopp-Allee 16, Walldorf",
           (0.0, 0.0), 200),
    polygon("parking-p7", "WDF01 Parking P7", "Visitor and truck parking north-east of the campus",
            [(280.0, 260.0), (560.0, 260.0), (560.0, 420.0), (280.0, 420.0)]),
    circle("gatehouse", "WDF01 Gatehouse", "Barrier on the west access road; its 5 m radius is clamped to 20 m",
           (-330.0, 60.0), 5, notify=("enter",)),
    circle("wdf-depot", "Walldorf Depot", "Delivery depot: a truck standing here a minute raises a dwell alert",
           (1100.0, 300.0), 120, notify=("enter", "exit", "dwell"), dwell=60),
    circle("logistics-west", "Logistics Warehouse West", "Cross-dock warehouse with a yard loop",
           (-1500.0, -400.0), 300),
    circle("fuel-south", "Fuel Station South", "Truck fuel station", (300.0, -1000.0), 80),
    polygon("rail-yard", "Walldorf Rail Yard", "Freight loading tracks along the railway",
            rotated_rect(*RAIL_CENTRE, *RAIL_AXIS, RAIL_HALF_LENGTH, RAIL_HALF_WIDTH)),
    circle("hub-east", "Distribution Hub East", "Regional distribution hub", (2800.0, 500.0), 400),
    # The fleet rules: a corridor, a campus with a lot cut out of it, a speed limit, a fence for
    # odd-numbered trucks only, and the stops of a delivery tour.
    corridor("b291-corridor", "B291 haul corridor", "Trucks assigned to the haul road stay within 50 m of it",
             CORRIDOR_LINE, CORRIDOR_BUFFER),
    polygon("research-campus", "Research Campus North", "Campus grounds; the contractor lot inside is not part of them",
            rect(-1000.0, 3200.0, -200.0, 3900.0), holes=[LOT_HOLE]),
    polygon("school-zone", "School Zone Rot", "30 km/h past the school", rect(3800.0, -400.0, 5800.0, 0.0),
            speed_limit_kmh=SPEED_LIMIT),
    circle("contractor-yard", "Contractor Yard", "Only odd-numbered trucks are contracted here",
           (-1500.0, 1700.0), 300, devices=ODD_TRUCKS),
    circle("dock-a", "Dock A", "First stop of the delivery tour", DOCKS[0], 80),
    circle("dock-b", "Dock B", "Second stop of the delivery tour", DOCKS[1], 80),
    circle("dock-c", "Dock C", "Third stop of the delivery tour", DOCKS[2], 80),
]

TOURS = [
    {"id": "deliveries", "name": "Dock deliveries", "devices": ["truck-*"],
     "stops": ["dock-a", "dock-b", "dock-c"], "ordered": True},
]


def fence_feature(f):
    props = {"id": f["id"], "name": f["name"], "description": f["description"]}
    if f["kind"] == "circle":
        lat, lon = to_latlon(*f["centre"])
        geometry = {"type": "Point", "coordinates": [lon, lat]}
        props["radius"] = f["radius"]
    elif f["kind"] == "corridor":
        geometry = {"type": "LineString", "coordinates": [list(reversed(to_latlon(x, y))) for x, y in f["line"]]}
        props["buffer_m"] = f["buffer"]
    else:
        rings = []
        for ring in [f["ring"]] + f["holes"]:
            closed = [list(reversed(to_latlon(x, y))) for x, y in ring]
            closed.append(closed[0])
            rings.append(closed)
        geometry = {"type": "Polygon", "coordinates": rings}
    props["notify"] = f["notify"]
    if f["dwell_s"] is not None:
        props["dwell_s"] = f["dwell_s"]
    for key in ("devices", "speed_limit_kmh"):
        if key in f:
            props[key] = f[key]
    return {"type": "Feature", "id": f["id"], "properties": props, "geometry": geometry}


def write_fences():
    collection = {"type": "FeatureCollection", "features": [fence_feature(f) for f in FENCES]}
    lines = ['{', '  "type": "FeatureCollection",', '  "features": [']
    for i, feature in enumerate(collection["features"]):
        comma = "," if i < len(collection["features"]) - 1 else ""
        lines.append("    " + json.dumps(feature, ensure_ascii=False) + comma)
    lines += ["  ]", "}"]
    with open(FENCES_FILE, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")


def write_tours():
    with open(TOURS_FILE, "w", encoding="utf-8") as out:
        out.write("[\n" + ",\n".join("  " + json.dumps(t, ensure_ascii=False) for t in TOURS) + "\n]\n")


def segment_distance(x, y, ax, ay, bx, by):
    ex, ey = bx - ax, by - ay
    t = max(0.0, min(1.0, ((x - ax) * ex + (y - ay) * ey) / (ex * ex + ey * ey)))
    return math.hypot(ax + t * ex - x, ay + t * ey - y)


def signed_distance(f, x, y):
    """Metres to the boundary, positive inside: circles on the sphere, the rest in local metres
    (holes by the even-odd count: inside a hole is outside)."""
    if f["kind"] == "circle":
        radius = max(f["radius"], MIN_RADIUS)
        lat, lon = to_latlon(x, y)
        clat, clon = to_latlon(*f["centre"])
        return radius - haversine(clat, clon, lat, lon)
    if f["kind"] == "corridor":
        line = f["line"]
        return f["buffer"] - min(segment_distance(x, y, *a, *b) for a, b in zip(line, line[1:]))
    inside = False
    best = float("inf")
    for ring in [f["ring"]] + f["holes"]:
        for i in range(len(ring)):
            ax, ay = ring[i]
            bx, by = ring[(i + 1) % len(ring)]
            if (ay > y) != (by > y) and x < ax + (y - ay) / (by - ay) * (bx - ax):
                inside = not inside
            best = min(best, segment_distance(x, y, ax, ay, bx, by))
    return best if inside else -best


def fence_by_id(fid):
    return next(f for f in FENCES if f["id"] == fid)


# --- route building -----------------------------------------------------------------------------

class Path:
    """A polyline with a pace: each leg has a speed, stops hold the position for a while."""

    def __init__(self, start, kmh=DEFAULT_KMH):
        self.points = [(start[0], start[1], 0.0)]  # x, y, seconds since start
        self.kmh = kmh
        self.segment_breaks = []  # indices where a new trkseg starts

    def to(self, x, y, kmh=None):
        px, py, pt = self.points[-1]
        speed = (kmh or self.kmh) / 3.6
        self.points.append((x, y, pt + math.hypot(x - px, y - py) / speed))
        return self

    def through(self, points, kmh=None):
        for x, y in points:
            self.to(x, y, kmh)
        return self

    def stop(self, seconds):
        x, y, t = self.points[-1]
        self.points.append((x, y, t + seconds))
        return self

    def new_segment(self, pause):
        """Ends the trkseg here and starts the next one `pause` seconds later at the same place."""
        x, y, t = self.points[-1]
        self.segment_breaks.append(len(self.points))
        self.points.append((x, y, t + pause))
        return self


def arc(cx, cy, radius, start_deg, end_deg, steps):
    """Points on a circle, angles counter-clockwise from east."""
    out = []
    for i in range(steps + 1):
        a = math.radians(start_deg + (end_deg - start_deg) * i / steps)
        out.append((cx + radius * math.cos(a), cy + radius * math.sin(a)))
    return out


def rail_point(along, across=0.0):
    """A point in the rail yard's frame: metres along its axis from the centre, and across it."""
    norm = math.hypot(*RAIL_AXIS)
    ux, uy = RAIL_AXIS[0] / norm, RAIL_AXIS[1] / norm
    return (RAIL_CENTRE[0] + along * ux - across * uy, RAIL_CENTRE[1] + along * uy + across * ux)


# --- the routes ---------------------------------------------------------------------------------

def route_campus_parking():
    """Timed track: through the parking lot (a polygon) at 10 km/h, then across the campus at 15 km/h."""
    p = Path((-900.0, 340.0))
    p.to(240.0, 340.0)                      # along the north road, 140 m clear of the campus
    p.to(600.0, 340.0, kmh=10)              # across parking P7 west to east
    p.to(700.0, 340.0, kmh=30)
    p.to(700.0, -40.0)
    p.to(240.0, -40.0)
    p.to(-240.0, -40.0, kmh=15)             # campus road, east to west
    p.to(-1100.0, -40.0)                    # west, 100 m south of the gatehouse
    return p


def route_depot_dwell():
    """Timed track: stops 150 s inside the depot, whose dwell_s is 60."""
    p = Path((-300.0, 700.0))
    p.to(900.0, 700.0)
    p.to(1100.0, 480.0)
    p.to(1100.0, 300.0, kmh=20)             # into the depot yard
    p.stop(150)                             # unloading
    p.to(1100.0, 140.0, kmh=20)
    p.to(1100.0, -100.0)
    p.to(1900.0, -100.0)
    return p


def route_west_loop():
    """Track without times: a yard loop in the west warehouse and a lap of the campus, then home."""
    p = Path((-600.0, -1000.0))
    p.to(-1500.0, -1000.0)
    p.to(-1500.0, -550.0)                   # north into the warehouse, 150 m deep
    p.through(arc(-1500.0, -400.0, 150.0, -90, 270, 24)[1:])  # one yard lap
    p.to(-1500.0, -100.0)
    p.to(-1500.0, 450.0)
    p.to(0.0, 450.0)                        # 250 m north of the campus, 130 m north of the gatehouse
    p.to(0.0, 120.0)                        # south into the campus
    p.through(arc(0.0, 0.0, 120.0, 90, 450, 24)[1:])  # a lap on the inner ring road
    p.to(0.0, -400.0)                       # out through the south gate
    p.to(-600.0, -1000.0)
    return p


def route_rail_hub():
    """GPX route (rte, no times): the length of the rail yard, then a zigzag through the east hub."""
    p = Path(rail_point(-1500.0))
    p.to(*rail_point(900.0))                # along the yard's axis, 70 m from each long edge
    p.to(2800.0, -300.0)
    p.to(2800.0, 100.0)
    p.through([(2600.0, 350.0), (3000.0, 650.0), (2800.0, 900.0)])  # inside the hub
    p.to(2800.0, 1800.0)
    return p


GRAZE_FENCE = "parking-p7"


def route_parking_graze():
    """Track without times that hugs the parking lot's north and east edges within 5 m."""
    p = Path((-700.0, 1000.0))
    p.to(200.0, 430.0)
    # The north edge is y = 420 (inside below it), the east edge x = 560 (inside to the west).
    p.through([(285.0, 424.0), (320.0, 417.0), (380.0, 423.5), (440.0, 416.5), (500.0, 424.0),
               (556.0, 417.0), (564.0, 380.0), (557.0, 340.0), (563.5, 300.0), (557.0, 270.0)])
    p.to(620.0, 200.0)
    p.to(1500.0, 1000.0)
    return p


GRAZE_SECTION = (2, 11)  # point indices of the hugging part (inclusive)


def route_campus_waypoints():
    """Waypoints only: a lap of the inner ring road, entered from the south, left to the north."""
    p = Path((-800.0, -1400.0))
    p.to(0.0, -350.0)
    p.through(arc(0.0, 0.0, 140.0, -90, 270, 8))  # eight stops on the ring, 60 m inside
    p.to(0.0, 0.0)
    p.to(0.0, 400.0)
    p.to(0.0, 1300.0)
    return p


WAYPOINT_NAMES = ["Walldorf Süd", "Campus south approach", "Ring road south", "Building 5",
                  "Building 3", "Building 1", "Ring road north", "Building 2", "Building 4",
                  "Building 6", "Ring road south again", "Campus centre", "Campus north exit",
                  "Nußloch road"]


def route_gate_fuel():
    """Timed track in two segments: 90 s at the gatehouse barrier, the campus, then refuelling."""
    p = Path((-1500.0, 60.0))
    p.to(-330.0, 60.0)                      # to the barrier
    p.new_segment(pause=90)                 # gate check; the GPS logger restarts a segment
    p.to(-250.0, 30.0, kmh=3)               # queue to the campus entry
    p.through([(-60.0, 0.0), (40.0, -120.0), (80.0, -260.0)], kmh=15)
    p.to(300.0, -850.0, kmh=30)
    p.to(300.0, -1000.0, kmh=15)            # into the fuel station
    p.stop(120)                             # refuelling
    p.to(300.0, -1150.0, kmh=15)
    p.to(-300.0, -1900.0)
    return p


def route_corridor_haul():
    """Timed track: through the contractor yard (odd trucks only), then onto the haul corridor,
    along it to the end of the route: enter, and no exit."""
    p = Path((-1500.0, 300.0))
    p.to(-1500.0, 1200.0)
    p.to(-1500.0, 1800.0, kmh=20)           # across the contractor yard
    p.to(-1500.0, 2600.0, kmh=40)           # north onto the corridor's line
    p.through(CORRIDOR_LINE[1:3])           # along it, on its centre
    p.to(3400.0, 3400.0)                    # and stops 100 m before its end
    return p


def route_corridor_detour():
    """Track without times: joins the haul corridor, follows it round its bend, then leaves it
    at right angles: enter, exit."""
    p = Path((500.0, 1500.0))
    p.to(500.0, 2600.0)
    p.to(*CORRIDOR_LINE[1])
    p.to(1500.0, 3000.0)                    # halfway along the diagonal
    p.to(1500.0 + 0.6247 * 1000, 3000.0 - 0.7809 * 1000)  # off to the south-east, square to the line
    return p


def route_campus_lot():
    """Timed track: into the research campus, through the contractor lot cut out of it (exit,
    90 s parked, enter again) and out of the far side."""
    p = Path((-2000.0, 3550.0))
    p.to(-1100.0, 3550.0)
    p.to(-575.0, 3550.0, kmh=10)            # campus from x = -1000, the lot from x = -700
    p.stop(90)
    p.to(-100.0, 3550.0, kmh=10)            # campus again from x = -450, out at x = -200
    p.to(700.0, 3550.0)
    return p


def route_speed_fast():
    """Timed track: into the school zone at 25 km/h, 1 km at 50 km/h (limit 30), then 25 km/h
    again to the far side: one speeding episode, well inside the zone."""
    p = Path((2800.0, -200.0))
    p.to(3500.0, -200.0)
    p.to(4150.0, -200.0, kmh=25)            # the zone starts at x = 3800
    p.to(5150.0, -200.0, kmh=50)
    p.to(6300.0, -200.0, kmh=25)            # the zone ends at x = 5800
    return p


def route_speed_slow():
    """Timed track: through the school zone at 25 km/h, under its limit of 30."""
    p = Path((2800.0, -200.0))
    p.to(3400.0, -200.0)
    p.to(6400.0, -200.0, kmh=25)
    return p


def dock_stop(p, dock):
    p.to(*dock, kmh=30)
    p.stop(90)
    return p


def route_delivery_in_order():
    """Timed track: the delivery tour's docks A, B and C in order, 90 s at each."""
    p = Path((2700.0, -1400.0), kmh=30)
    for dock in DOCKS:
        dock_stop(p, dock)
    p.to(6200.0, -1400.0)
    return p


def route_delivery_skip():
    """Timed track: dock A, then round dock B at 270 m, then dock C: B is skipped."""
    p = Path((2700.0, -1400.0), kmh=30)
    dock_stop(p, DOCKS[0])
    p.through([(4000.0, -1400.0), (4000.0, -1750.0), (4800.0, -1750.0), (4800.0, -1400.0)])
    dock_stop(p, DOCKS[2])
    p.to(6200.0, -1400.0)
    return p


def route_delivery_unfinished():
    """Timed track: docks A and B, then away south: the tour is never completed."""
    p = Path((2700.0, -1400.0), kmh=30)
    dock_stop(p, DOCKS[0])
    dock_stop(p, DOCKS[1])
    p.to(4400.0, -2300.0)
    return p


ROUTES = [
    # file, kind, name, description, builder, timed, start time
    ("campus-parking-timed.gpx", "trk", "Campus and parking, timed",
     "Timed track: clean crossings of parking P7 (polygon) and WDF01 at campus speeds",
     route_campus_parking, True, "2026-11-22T08:00:00"),
    ("depot-dwell-timed.gpx", "trk", "Depot delivery with dwell",
     "Timed track: 150 s stop inside the depot (dwell_s 60): enter, dwell, exit",
     route_depot_dwell, True, "2026-11-22T08:30:00"),
    ("west-loop-untimed.gpx", "trk", "West loop, untimed",
     "Track without times: warehouse yard loop and a lap of WDF01 at --speed-kmh",
     route_west_loop, False, None),
    ("rail-hub-route.gpx", "rte", "Rail yard and east hub",
     "GPX route (rte/rtept): the length of the rail yard (polygon) and through Hub East",
     route_rail_hub, False, None),
    ("parking-graze-untimed.gpx", "trk", "Parking lot graze",
     "Track without times that stays within 5 m of parking P7's edge: ambiguous, never clean",
     route_parking_graze, False, None),
    ("campus-waypoints.gpx", "wpt", "Campus waypoint tour",
     "Waypoints only: a lap inside WDF01 at --speed-kmh",
     route_campus_waypoints, False, None),
    ("gate-fuel-timed.gpx", "trk", "Gate check and refuelling",
     "Timed track in two segments: 90 s at the clamped gatehouse fence, WDF01, fuel station stop",
     route_gate_fuel, True, "2026-11-22T09:00:00"),
    ("corridor-haul-timed.gpx", "trk", "Contractor yard and haul corridor",
     "Timed track: the contractor yard (odd trucks only), then along the B291 corridor to its end",
     route_corridor_haul, True, "2026-11-22T09:30:00"),
    ("corridor-detour-untimed.gpx", "trk", "Corridor detour, untimed",
     "Track without times: joins the B291 corridor round its bend, then leaves it",
     route_corridor_detour, False, None),
    ("north-campus-lot-timed.gpx", "trk", "Research campus and its contractor lot",
     "Timed track: the lot is a hole in the campus: parking there exits the campus",
     route_campus_lot, True, "2026-11-22T10:00:00"),
    ("speed-zone-fast-timed.gpx", "trk", "School zone, speeding",
     "Timed track: 50 km/h for a kilometre in the 30 km/h school zone",
     route_speed_fast, True, "2026-11-22T10:30:00"),
    ("speed-zone-slow-timed.gpx", "trk", "School zone, within the limit",
     "Timed track: 25 km/h through the 30 km/h school zone",
     route_speed_slow, True, "2026-11-22T10:45:00"),
    ("delivery-in-order-timed.gpx", "trk", "Delivery tour in order",
     "Timed track: docks A, B and C in order, 90 s at each",
     route_delivery_in_order, True, "2026-11-22T11:00:00"),
    ("delivery-skip-timed.gpx", "trk", "Delivery tour skipping dock B",
     "Timed track: docks A and C, round dock B",
     route_delivery_skip, True, "2026-11-22T11:15:00"),
    ("delivery-unfinished-timed.gpx", "trk", "Delivery tour left unfinished",
     "Timed track: docks A and B, then away",
     route_delivery_unfinished, True, "2026-11-22T11:30:00"),
]


# --- GPX output ---------------------------------------------------------------------------------

def xml_escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def gpx_time(start, seconds):
    t = start + timedelta(seconds=round(seconds, 1))
    text = t.strftime("%Y-%m-%dT%H:%M:%S")
    tenths = round(t.microsecond / 100_000)
    return text + (f".{tenths}Z" if tenths else "Z")


def write_gpx(filename, kind, name, desc, path, timed, start_text):
    start = datetime.fromisoformat(start_text).replace(tzinfo=timezone.utc) if timed else None
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<gpx version="1.1" creator="FleetFence Simulator/Tools/make_routes.py" '
           'xmlns="http://www.topografix.com/GPX/1/1">',
           f'  <metadata><name>{xml_escape(name)}</name><desc>{xml_escape(desc)}</desc></metadata>']

    def point_xml(tag, x, y, t, indent, extra=""):
        lat, lon = to_latlon(x, y)
        body = ""
        if timed:
            body += "<ele>110.0</ele>"  # Walldorf is flat; elevation is ignored by the simulator
            body += f"<time>{gpx_time(start, t)}</time>"
        body += extra
        return f'{indent}<{tag} lat="{lat:.7f}" lon="{lon:.7f}">{body}</{tag}>'

    if kind == "trk":
        out.append(f"  <trk><name>{xml_escape(name)}</name>")
        out.append("    <trkseg>")
        for i, (x, y, t) in enumerate(path.points):
            if i in path.segment_breaks:
                out.append("    </trkseg>")
                out.append("    <trkseg>")
            out.append(point_xml("trkpt", x, y, t, "      "))
        out.append("    </trkseg>")
        out.append("  </trk>")
    elif kind == "rte":
        out.append(f"  <rte><name>{xml_escape(name)}</name>")
        for x, y, t in path.points:
            out.append(point_xml("rtept", x, y, t, "    "))
        out.append("  </rte>")
    else:
        for (x, y, t), wname in zip(path.points, WAYPOINT_NAMES):
            out.append(point_xml("wpt", x, y, t, "  ", f"<name>{xml_escape(wname)}</name>"))
    out.append("</gpx>")
    with open(os.path.join(ROUTES_DIR, filename), "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


# --- checking -----------------------------------------------------------------------------------

def paced(path, timed):
    """(x, y, t) with the replay's pace: the track's times, or DEFAULT_KMH along the polyline."""
    if timed:
        return path.points
    out, t = [], 0.0
    for i, (x, y, _) in enumerate(path.points):
        if i:
            px, py, _ = path.points[i - 1]
            t += math.hypot(x - px, y - py) / (DEFAULT_KMH / 3.6)
        out.append((x, y, t))
    return out


def sample(points, step=0.25):
    """The path every `step` seconds, plus every vertex."""
    out = []
    for i in range(1, len(points)):
        (ax, ay, at), (bx, by, bt) = points[i - 1], points[i]
        n = max(1, int(math.ceil((bt - at) / step)))
        for k in range(n):
            f = k / n
            out.append((ax + (bx - ax) * f, ay + (by - ay) * f, at + (bt - at) * f))
    out.append(points[-1])
    return out


def check_route(filename, path, timed):
    """Returns (problems, crossing descriptions)."""
    points = paced(path, timed)
    samples = sample(points)
    problems, crossings = [], []
    graze = filename.startswith("parking-graze")
    for f in FENCES:
        d = [signed_distance(f, x, y) for x, y, _ in samples]
        runs = []  # (inside, start index, end index)
        start = 0
        for i in range(1, len(d) + 1):
            if i == len(d) or (d[i] > 0) != (d[start] > 0):
                runs.append((d[start] > 0, start, i - 1))
                start = i
        if len(runs) == 1 and not runs[0][0]:
            continue
        radius = (max(f.get("radius") or 0, MIN_RADIUS) if f["kind"] == "circle"
                  else f["buffer"] if f["kind"] == "corridor" else None)
        for inside, lo, hi in runs:
            if inside and f.get("speed_limit_kmh"):
                problems += check_speeds(filename, f, samples, lo, hi)
            duration = samples[hi][2] - samples[lo][2]
            depth = max(abs(v) for v in d[lo:hi + 1])
            need_depth = 50.0 if not inside or radius is None else min(50.0, 0.9 * radius)
            if graze and f["id"] == GRAZE_FENCE and depth <= 5.0 + 1e-6:
                continue  # the intended graze
            if depth < need_depth or duration < 60.0:
                problems.append(f"{filename}: {f['id']} {'inside' if inside else 'outside'} run at "
                                f"t={samples[lo][2]:.0f}s lasts {duration:.0f}s, {depth:.0f} m deep")
            if inside:
                crossings.append(f"{f['id']} in t={samples[lo][2]:.0f}..{samples[hi][2]:.0f}s depth {depth:.0f} m")
    if graze:
        lo, hi = GRAZE_SECTION
        fence = fence_by_id(GRAZE_FENCE)
        worst = max(abs(signed_distance(fence, x, y)) for x, y, _ in sample(points[lo:hi + 1]))
        sides = {signed_distance(fence, x, y) > 0 for x, y, _ in points[lo:hi + 1]}
        if worst > 5.0 or sides != {True, False}:
            problems.append(f"{filename}: the graze strays {worst:.1f} m from {GRAZE_FENCE} or keeps one side")
        crossings.append(f"{GRAZE_FENCE} graze within {worst:.1f} m")
    return problems, crossings, points[-1][2], sum(
        math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(points, points[1:]))


def check_speeds(filename, f, samples, lo, hi):
    """Inside a speed-limited fence: under the limit throughout, or over it in one stretch that
    begins 45 s after the enter, lasts the debounce and 20 s more, and ends 30 s before the exit
    (so that noise at the crossings and the timing margins leave it clean); never within 2 km/h
    of the limit."""
    limit = f["speed_limit_kmh"]
    kmh = []
    for k in range(lo, hi + 1):
        (ax, ay, at), (bx, by, bt) = samples[k], samples[min(k + 1, len(samples) - 1)]
        kmh.append(math.hypot(bx - ax, by - ay) / (bt - at) * 3.6 if bt > at else 0.0)
    problems = []
    if any(abs(v - limit) < 2 for v in kmh):
        problems.append(f"{filename}: {f['id']}: a speed within 2 km/h of the limit")
    over = [k for k, v in enumerate(kmh) if v > limit]
    if not over:
        return problems
    first, last = over[0], over[-1]
    t = lambda k: samples[lo + k][2]
    if over != list(range(first, last + 1)):
        problems.append(f"{filename}: {f['id']}: more than one stretch over the limit")
    if t(first) - t(0) < 45 or t(len(kmh) - 1) - t(last) < 30 or t(last) - t(first) < DEBOUNCE + 20:
        problems.append(f"{filename}: {f['id']}: over the limit from {t(first) - t(0):.0f} s after the enter "
                        f"for {t(last) - t(first):.0f} s, {t(len(kmh) - 1) - t(last):.0f} s before the exit")
    return problems


def main():
    os.makedirs(ROUTES_DIR, exist_ok=True)
    write_fences()
    write_tours()
    all_problems = []
    for filename, kind, name, desc, builder, timed, start in ROUTES:
        path = builder()
        write_gpx(filename, kind, name, desc, path, timed, start)
        problems, crossings, duration, length = check_route(filename, path, timed)
        all_problems += problems
        print(f"{filename:28} {length / 1000:5.2f} km {duration / 60:5.1f} min  " + "; ".join(crossings))
    for problem in all_problems:
        print("NOT CLEAN:", problem, file=sys.stderr)
    return 1 if all_problems else 0


if __name__ == "__main__":
    sys.exit(main())
