package auth

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// DefaultAdminEmail is the admin's e-mail when none is configured.
const DefaultAdminEmail = "admin@localhost"

// AdminSetup is what [Service.EnsureAdmin] found and did.
type AdminSetup struct {
	// User is the admin.
	User User
	// Generated is the password generated for a new admin, to be shown
	// once; "" when the admin was not created or its password was given.
	Generated string
	// PasswordChanged is true when the given password replaced another:
	// EndedSessions of the admin's sessions were ended with it.
	PasswordChanged bool
	EndedSessions   int
	// Replaced are the previous admins removed because the configured
	// e-mail named a new one: every other user, with their sessions and
	// API tokens.
	Replaced []User
}

// EnsureAdmin makes sure the admin user exists, at every start of the
// host; the configuration (flags and environment) stays authoritative
// across restarts.
//
//   - email empty: if any user exists, the oldest one is the admin; else
//     DefaultAdminEmail is created.
//   - email naming a user: that user is the admin.
//   - email naming no user while users exist: the admin changed. The new
//     admin is created and every other user (the previous admins: the
//     host creates no other users) is removed with its sessions and API
//     tokens, so that the old e-mail no longer signs in; setup.Replaced
//     says who, for the host to tell.
//   - password given: it becomes the admin's password; when it differs
//     from the stored one, the admin's sessions end (whoever signed in
//     with the old password is signed out).
//   - password empty and the admin created: a password is generated and
//     returned in setup.Generated, to be shown once.
func (s *Service) EnsureAdmin(ctx context.Context, email, password string) (setup AdminSetup, err error) {
	if password != "" {
		if err := checkPassword(password); err != nil {
			return AdminSetup{}, err
		}
	}
	if email == "" {
		u, err := s.on(s.db).oldestUser(ctx)
		if err == nil {
			return s.keepAdmin(ctx, u, password)
		}
		if !errors.Is(err, ErrNotFound) {
			return AdminSetup{}, err
		}
		email = DefaultAdminEmail
	}
	email, err = normalizeEmail(email)
	if err != nil {
		return AdminSetup{}, err
	}
	u, err := s.on(s.db).userByEmail(ctx, email)
	switch {
	case err == nil:
		return s.keepAdmin(ctx, u, password)
	case !errors.Is(err, ErrNotFound):
		return AdminSetup{}, err
	}
	if password == "" {
		password = GeneratePassword()
		setup.Generated = password
	}
	created, err := s.CreateUser(ctx, email, password)
	if err != nil {
		// Another host process may have created it in between.
		u, err2 := s.on(s.db).userByEmail(ctx, email)
		if err2 != nil {
			return AdminSetup{}, err
		}
		setup.Generated = ""
		created = u
	}
	setup.User = created
	if setup.Replaced, err = s.removeUsersBut(ctx, created.ID); err != nil {
		return AdminSetup{}, err
	}
	return setup, nil
}

// keepAdmin is EnsureAdmin for an admin that exists: its password set
// when one is given.
func (s *Service) keepAdmin(ctx context.Context, u User, password string) (AdminSetup, error) {
	setup := AdminSetup{User: u}
	if password == "" {
		return setup, nil
	}
	var err error
	setup.PasswordChanged, setup.EndedSessions, err = s.SetPassword(ctx, u.ID, password, "")
	return setup, err
}

// removeUsersBut removes every user but keep, with their sessions and
// tokens, and returns them.
func (s *Service) removeUsersBut(ctx context.Context, keep string) ([]User, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("auth: remove the previous admins: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	gone, err := s.on(tx).usersBut(ctx, keep)
	if err != nil {
		return nil, fmt.Errorf("auth: remove the previous admins: %w", err)
	}
	if err := s.on(tx).deleteUsersBut(ctx, keep); err != nil {
		return nil, fmt.Errorf("auth: remove the previous admins: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("auth: remove the previous admins: %w", err)
	}
	s.forget() // their tokens may be in the authentication cache
	return gone, nil
}

// SetPassword replaces a user's password. A password that differs from
// the stored one ends the user's sessions but keepSession (the session of
// the request that changed it, if any; "" ends all): whoever signed in
// with the old password is signed out. changed is false when the password
// was already this one (nothing is written, no session ends); ended
// counts the sessions ended. API tokens are not touched.
func (s *Service) SetPassword(ctx context.Context, userID, password, keepSession string) (changed bool, ended int, err error) {
	if err := checkPassword(password); err != nil {
		return false, 0, err
	}
	current, err := s.on(s.db).passwordHash(ctx, userID)
	if errors.Is(err, sql.ErrNoRows) {
		return false, 0, ErrNotFound
	}
	if err != nil {
		return false, 0, fmt.Errorf("auth: read user: %w", err)
	}
	same, err := s.comparePassword(ctx, current, password)
	if err != nil {
		return false, 0, err
	}
	if same {
		return false, 0, nil // unchanged: keep the hash (and the sessions) as they are
	}
	hash, err := s.hashPassword(ctx, password)
	if err != nil {
		return false, 0, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, 0, fmt.Errorf("auth: set password: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := s.on(tx).setPasswordHash(ctx, userID, hash); err != nil {
		return false, 0, fmt.Errorf("auth: set password: %w", err)
	}
	keepHash := ""
	if keepSession != "" {
		keepHash = Hash(keepSession)
	}
	n, err := s.on(tx).deleteSessionsOf(ctx, userID, keepHash)
	if err != nil {
		return false, 0, fmt.Errorf("auth: set password: end the sessions: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return false, 0, fmt.Errorf("auth: set password: %w", err)
	}
	return true, int(n), nil
}
