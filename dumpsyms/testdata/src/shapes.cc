// A C++ program for the DWARF comparison with Google's dump_syms:
// namespaces, classes (nested, local, templates), constructors whose
// complete and base variants share an address, virtual functions and
// thunks, operators, lambdas, an anonymous namespace, inlined calls
// several levels deep (also in lexical blocks), and hot/cold split
// functions (DW_AT_ranges).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace geo {

struct Point {
	double x, y;
	Point operator+(const Point& o) const { return {x + o.x, y + o.y}; }
	bool operator<(const Point& o) const { return x < o.x || (x == o.x && y < o.y); }
};

class Shape {
public:
	explicit Shape(const char* name) : name_(name) {}
	virtual ~Shape() = default;
	virtual double area() const = 0;
	const std::string& name() const { return name_; }

private:
	std::string name_;
};

class Named {
public:
	virtual ~Named() = default;
	virtual const char* label() const { return "named"; }
};

class Circle : public Shape, public Named {
public:
	explicit Circle(double r) : Shape("circle"), r_(r) {}
	double area() const override;
	const char* label() const override { return "circle"; }

private:
	double r_;
};

double Circle::area() const { return 3.14159 * r_ * r_; }

template <typename T>
class Grid {
public:
	explicit Grid(int n) : cells_(n) {}
	T sum() const;
	void set(int i, T v) { cells_.at(i) = v; }

private:
	std::vector<T> cells_;
};

template <typename T>
T Grid<T>::sum() const {
	T total{};
	for (const T& c : cells_)
		total += c;
	return total;
}

namespace detail {
static inline int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
__attribute__((always_inline)) inline int scale(int v) { return clampi(v * 3, -100, 100); }
__attribute__((always_inline)) inline int twice(int v) {
	int r = 0;
	for (int i = 0; i < 2; i++) {
		int t = scale(v + i);
		r += t;
	}
	return r;
}
} // namespace detail

} // namespace geo

namespace {
int hidden(int v) {
	struct Local {
		static int twist(int x) { return x ^ 0x5a; }
	};
	return Local::twist(v) + geo::detail::twice(v);
}
} // namespace

__attribute__((noinline)) int checked(int v) {
	if (__builtin_expect(v < 0, 0)) {
		fprintf(stderr, "negative %d\n", v);
		abort();
	}
	return v * 2;
}

extern "C" int c_entry(int v) { return hidden(v) + 1; }

int main(int argc, char** argv) {
	std::vector<std::unique_ptr<geo::Shape>> shapes;
	shapes.push_back(std::make_unique<geo::Circle>(argc));
	geo::Grid<int> gi(4);
	geo::Grid<double> gd(3);
	gi.set(1, argc);
	gd.set(2, argc * 0.5);
	std::map<geo::Point, int> seen;
	seen[geo::Point{1, 2} + geo::Point{argc * 1.0, 0}] = 3;
	auto add = [&](int k) { return k + gi.sum() + static_cast<int>(seen.size()); };
	int total = add(argc) + checked(argc) + c_entry(argc) + static_cast<int>(gd.sum());
	for (auto& s : shapes)
		total += static_cast<int>(s->area()) + static_cast<int>(strlen(s->name().c_str()));
	printf("%d %s\n", total, argc > 1 ? argv[1] : "");
	return total & 1;
}
