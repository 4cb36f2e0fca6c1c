//go:build windows

package main

import (
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/svc"
)

// startedAsService reports whether the service control manager started
// this process. svc.IsWindowsService asks for a parent named services.exe
// in session 0; Wine runs its services.exe in session 1, so under Wine
// (where ntdll exports wine_get_version) a parent named services.exe is
// enough. Without this, labagent installed as a service under Wine (by the
// MSI, say) would run as a console program that never answers the service
// manager, whose start then times out.
func startedAsService() (bool, error) {
	is, err := svc.IsWindowsService()
	if err != nil || is || !underWine() {
		return is, err
	}
	parent, ok := processParent(windows.GetCurrentProcessId())
	if !ok {
		return false, nil
	}
	name, _ := processName(parent)
	return strings.EqualFold(name, "services.exe"), nil
}

// underWine reports whether this Windows program runs under Wine.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// processParent returns the pid of pid's parent.
func processParent(pid uint32) (uint32, bool) {
	var parent uint32
	found := false
	eachProcess(func(e *windows.ProcessEntry32) bool {
		if e.ProcessID == pid {
			parent, found = e.ParentProcessID, true
			return false
		}
		return true
	})
	return parent, found
}

// processName returns the executable's name of the process pid.
func processName(pid uint32) (string, bool) {
	var name string
	found := false
	eachProcess(func(e *windows.ProcessEntry32) bool {
		if e.ProcessID == pid {
			name, found = windows.UTF16ToString(e.ExeFile[:]), true
			return false
		}
		return true
	})
	return name, found
}

// eachProcess calls f with each running process until f returns false.
func eachProcess(f func(*windows.ProcessEntry32) bool) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return
	}
	defer windows.CloseHandle(snap)
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		if !f(&e) {
			return
		}
	}
}
