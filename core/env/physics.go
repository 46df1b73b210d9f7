//go:build mujoco

package env

/*
#cgo LDFLAGS: -lmujoco
#include <stdlib.h>
#include <string.h>
#include <mujoco/mujoco.h>

// rlx_load compiles an MJCF document held in memory: MuJoCo reads models
// through its virtual file system, so the document becomes the one file of
// a VFS for the duration of the call. err receives the compiler's message.
static mjModel* rlx_load(const char* name, const char* xml, int n, char* err, int errsz) {
	mjVFS* vfs = (mjVFS*)malloc(sizeof(mjVFS));
	if (!vfs) {
		strncpy(err, "out of memory for the virtual file system", errsz - 1);
		return NULL;
	}
	mj_defaultVFS(vfs);
	if (mj_makeEmptyFileVFS(vfs, name, n) != 0) {
		free(vfs);
		strncpy(err, "could not add the model to the virtual file system", errsz - 1);
		return NULL;
	}
	memcpy(vfs->filedata[mj_findFileVFS(vfs, name)], xml, n);
	mjModel* m = mj_loadXML(name, vfs, err, errsz);
	mj_deleteVFS(vfs);
	free(vfs);
	return m;
}

// rlx_quiet replaces MuJoCo's default warning handler, which prints to
// stdout (over the explorer's screen) and appends to MUJOCO_LOG.TXT in the
// working directory. The warnings stay counted in each mjData's warning
// array. (Errors keep MuJoCo's handler: they come only from a model that
// does not compile, which loadModel reports first, or from a bug.)
static void rlx_quiet(const char* msg) { (void)msg; }
static void rlx_silence_warnings(void) { mju_user_warning = rlx_quiet; }

// rlx_step advances n physics steps with the controls already in d->ctrl,
// then computes the contact and constraint forces on each body (cacc,
// cfrc_int, cfrc_ext), which mj_step leaves stale unless a force sensor
// asks for them: Gymnasium's MujocoEnv calls mj_rnePostConstraint after
// the steps for the same reason.
static void rlx_step(const mjModel* m, mjData* d, int n) {
	for (int i = 0; i < n; i++) {
		mj_step(m, d);
	}
	mj_rnePostConstraint(m, d);
}
*/
import "C"

import (
	_ "embed"
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// MuJoCo reports whether this build has the MuJoCo physics environments
// (Hopper-v4, Humanoid-v4): true when built with -tags mujoco.
const MuJoCo = true

//go:embed mjcf/hopper.xml
var hopperXML []byte

//go:embed mjcf/humanoid.xml
var humanoidXML []byte

// mjModel is a compiled MuJoCo model. It is only read while stepping, so
// every copy of an environment shares one (MuJoCo's own rule: mjModel is
// constant during simulation, each thread has its own mjData). Models are
// compiled once per process and never freed.
type mjModel struct {
	m                 *C.mjModel
	nq, nv, nu, nbody int
	timestep          float64
	qpos0             []float64 // the reference configuration (Gymnasium's init_qpos)
	bodyMass          []float64
	totalMass         float64
	ctrlLow, ctrlHigh []float32
}

var (
	modelsMu sync.Mutex
	models   = map[string]*mjModel{}
)

func init() { C.rlx_silence_warnings() }

// loadModel compiles the embedded MJCF document xml (cached by name). An
// embedded model that does not compile is a bug of rlx: it panics with
// MuJoCo's message.
func loadModel(name string, xml []byte) *mjModel {
	modelsMu.Lock()
	defer modelsMu.Unlock()
	if m, ok := models[name]; ok {
		return m
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	cxml := C.CBytes(xml)
	defer C.free(cxml)
	var errbuf [1000]C.char
	cm := C.rlx_load(cname, (*C.char)(cxml), C.int(len(xml)), &errbuf[0], C.int(len(errbuf)))
	if cm == nil {
		panic(fmt.Sprintf("env: the embedded MuJoCo model %s does not compile: %s", name, C.GoString(&errbuf[0])))
	}
	m := &mjModel{
		m: cm, nq: int(cm.nq), nv: int(cm.nv), nu: int(cm.nu), nbody: int(cm.nbody),
		timestep: float64(cm.opt.timestep),
	}
	m.qpos0 = append([]float64(nil), cSlice(cm.qpos0, m.nq)...)
	m.bodyMass = append([]float64(nil), cSlice(cm.body_mass, m.nbody)...)
	for _, w := range m.bodyMass {
		m.totalMass += w
	}
	limits := cSlice(cm.actuator_ctrlrange, 2*m.nu)
	for i := range m.nu {
		m.ctrlLow = append(m.ctrlLow, float32(limits[2*i]))
		m.ctrlHigh = append(m.ctrlHigh, float32(limits[2*i+1]))
	}
	models[name] = m
	return m
}

// cSlice views n values of MuJoCo's memory at p as a Go slice.
func cSlice(p *C.mjtNum, n int) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(p)), n)
}

// mjData is one simulation state of a model. Its slices view MuJoCo's own
// arrays (memory outside Go's heap, freed by a cleanup when the mjData is
// unreachable), so they must not outlive it: only this file and the
// environments that own an mjData touch them, and every method here, and
// each environment's Reset and Step, ends with runtime.KeepAlive of the
// mjData, so that the memory cannot be freed while a C call or a read of
// a view is still under way on an environment's last use.
type mjData struct {
	model *mjModel
	d     *C.mjData

	qpos, qvel, ctrl []float64 // nq, nv, nu
	xipos            []float64 // nbody*3: each body's centre of mass
	cinert           []float64 // nbody*10: com-based inertia and mass
	cvel             []float64 // nbody*6: com-based velocity
	qfrcActuator     []float64 // nv: actuator forces in joint space
	cfrcExt          []float64 // nbody*6: external (contact) force on each body
}

func newData(m *mjModel) *mjData {
	cd := C.mj_makeData(m.m)
	if cd == nil {
		panic("env: MuJoCo could not allocate a simulation state")
	}
	d := &mjData{
		model: m, d: cd,
		qpos:         cSlice(cd.qpos, m.nq),
		qvel:         cSlice(cd.qvel, m.nv),
		ctrl:         cSlice(cd.ctrl, m.nu),
		xipos:        cSlice(cd.xipos, 3*m.nbody),
		cinert:       cSlice(cd.cinert, 10*m.nbody),
		cvel:         cSlice(cd.cvel, 6*m.nbody),
		qfrcActuator: cSlice(cd.qfrc_actuator, m.nv),
		cfrcExt:      cSlice(cd.cfrc_ext, 6*m.nbody),
	}
	runtime.AddCleanup(d, func(p *C.mjData) { C.mj_deleteData(p) }, cd)
	return d
}

// reset puts the state at the reference configuration, at rest, with no
// control and the clock at 0 (mj_resetData); the caller then perturbs
// qpos and qvel and calls forward.
func (d *mjData) reset() {
	C.mj_resetData(d.model.m, d.d)
	runtime.KeepAlive(d)
}

// forward recomputes every derived quantity of the current qpos and qvel
// without advancing time (mj_forward), as Gymnasium's set_state does.
func (d *mjData) forward() {
	C.mj_forward(d.model.m, d.d)
	runtime.KeepAlive(d)
}

// step advances frames physics steps with the controls in ctrl.
func (d *mjData) step(frames int) {
	C.rlx_step(d.model.m, d.d, C.int(frames))
	runtime.KeepAlive(d)
}

// massCenterX is the x coordinate of the whole body's centre of mass, the
// mass-weighted mean of the bodies' centres (Gymnasium's mass_center).
func (d *mjData) massCenterX() float64 {
	s := 0.0
	for b, w := range d.model.bodyMass {
		s += w * d.xipos[3*b]
	}
	runtime.KeepAlive(d)
	return s / d.model.totalMass
}

// energy is the mechanical energy of the current state: the potential of
// gravity and of the joint springs, and the kinetic energy (mj_energyPos,
// mj_energyVel), in joules. Contacts, damping and the solver's softness
// only take energy out, so with no control it never grows.
func (d *mjData) energy() (potential, kinetic float64) {
	C.mj_energyPos(d.model.m, d.d)
	C.mj_energyVel(d.model.m, d.d)
	potential, kinetic = float64(d.d.energy[0]), float64(d.d.energy[1])
	runtime.KeepAlive(d)
	return potential, kinetic
}

// warnings is the number of warnings MuJoCo has raised on this state since
// its last reset (unstable values, contact buffer overflows, ...).
func (d *mjData) warnings() int {
	n := 0
	for i := range C.mjNWARNING {
		n += int(d.d.warning[i].number)
	}
	runtime.KeepAlive(d)
	return n
}
